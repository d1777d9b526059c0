// description: test-only: every node carrying this namespace, whatever its label (labels, id, all properties), for scans of what a namespace still holds
// params: namespace
// returns: labels, id, props
// mode: read
MATCH (n) WHERE n.namespace = $namespace
RETURN labels(n) AS labels, n.id AS id, properties(n) AS props
ORDER BY id

// description: test-only: every node carrying this namespace, whatever its label, and every relationship touching one
// params: namespace
// returns: nodes, relationships
// mode: read
CALL () { MATCH (n) WHERE n.namespace = $namespace RETURN count(n) AS nodes }
CALL () { MATCH (n)-[r]-() WHERE n.namespace = $namespace RETURN count(DISTINCT r) AS relationships }
RETURN nodes, relationships

// description: test-only: every relationship whose start node is in one namespace: type, start and end ids, properties
// params: namespace
// returns: type, source, target, props
// mode: read
MATCH (a)-[r]->(b) WHERE a.namespace = $namespace
RETURN type(r) AS type, a.id AS source, b.id AS target, properties(r) AS props
ORDER BY type, source, target

// description: test-only: relationships by type whose start node is in one namespace, and how many (start, type, end) triples repeat (duplicates)
// params: namespace
// returns: type, relationships, distinct_pairs
// mode: read
MATCH (a)-[r]->(b) WHERE a.namespace = $namespace
RETURN type(r) AS type, count(r) AS relationships, count(DISTINCT [elementId(a), elementId(b)]) AS distinct_pairs
ORDER BY type

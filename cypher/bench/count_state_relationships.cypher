// description: benchmark: relationships of one namespace's state memory (start node a Topic, Event or State) by type, and how many repeat an existing (start, type, end) triple; compares a concurrent ingest with a single-writer one
// params: namespace
// returns: type, relationships, repeated
// mode: read
MATCH (a:Topic|Event|State {namespace: $namespace})-[r]->(b)
WHERE b.namespace = $namespace
WITH type(r) AS type, elementId(a) AS src, elementId(b) AS dst, count(r) AS n
RETURN type, sum(n) AS relationships, sum(n - 1) AS repeated
ORDER BY type

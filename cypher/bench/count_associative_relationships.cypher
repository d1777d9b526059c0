// description: benchmark: relationships of one namespace's associative memory (start node a Cue, Tag, Episode, SemanticUnit or Theme) by type, and how many repeat an existing (start, type, end) triple; compares a concurrent ingest with a single-writer one
// params: namespace
// returns: type, relationships, repeated
// mode: read
MATCH (a:Cue|Tag|Episode|SemanticUnit|Theme {namespace: $namespace})-[r]->(b)
WHERE b.namespace = $namespace
WITH type(r) AS type, elementId(a) AS src, elementId(b) AS dst, count(r) AS n
RETURN type, sum(n) AS relationships, sum(n - 1) AS repeated
ORDER BY type

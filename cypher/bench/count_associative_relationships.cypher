// description: benchmark: relationships of one namespace's associative memory (start node a Cue, Tag, Episode, SemanticUnit or Theme) by type, and how many repeat an existing (start, type, end) triple; compares a concurrent ingest with a single-writer one (one namespace index seek per start label)
// params: namespace
// returns: type, relationships, repeated
// mode: read
CALL () {
  MATCH (a:Cue {namespace: $namespace})-[r]->(b)
  USING INDEX a:Cue(namespace)
  WHERE b.namespace = $namespace
  RETURN a, r, b
  UNION ALL
  MATCH (a:Tag {namespace: $namespace})-[r]->(b)
  USING INDEX a:Tag(namespace)
  WHERE b.namespace = $namespace
  RETURN a, r, b
  UNION ALL
  MATCH (a:Episode {namespace: $namespace})-[r]->(b)
  USING INDEX a:Episode(namespace)
  WHERE b.namespace = $namespace
  RETURN a, r, b
  UNION ALL
  MATCH (a:SemanticUnit {namespace: $namespace})-[r]->(b)
  USING INDEX a:SemanticUnit(namespace)
  WHERE b.namespace = $namespace
  RETURN a, r, b
  UNION ALL
  MATCH (a:Theme {namespace: $namespace})-[r]->(b)
  USING INDEX a:Theme(namespace)
  WHERE b.namespace = $namespace
  RETURN a, r, b
}
WITH type(r) AS type, elementId(a) AS src, elementId(b) AS dst, count(r) AS n
RETURN type, sum(n) AS relationships, sum(n - 1) AS repeated
ORDER BY type

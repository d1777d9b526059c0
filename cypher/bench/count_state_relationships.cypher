// description: benchmark: relationships of one namespace's state memory (start node a Topic, Event or State) by type, and how many repeat an existing (start, type, end) triple; compares a concurrent ingest with a single-writer one (one namespace index seek per start label)
// params: namespace
// returns: type, relationships, repeated
// mode: read
CALL () {
  MATCH (a:Topic {namespace: $namespace})-[r]->(b)
  USING INDEX a:Topic(namespace)
  WHERE b.namespace = $namespace
  RETURN a, r, b
  UNION ALL
  MATCH (a:Event {namespace: $namespace})-[r]->(b)
  USING INDEX a:Event(namespace)
  WHERE b.namespace = $namespace
  RETURN a, r, b
  UNION ALL
  MATCH (a:State {namespace: $namespace})-[r]->(b)
  USING INDEX a:State(namespace)
  WHERE b.namespace = $namespace
  RETURN a, r, b
}
WITH type(r) AS type, elementId(a) AS src, elementId(b) AS dst, count(r) AS n
RETURN type, sum(n) AS relationships, sum(n - 1) AS repeated
ORDER BY type

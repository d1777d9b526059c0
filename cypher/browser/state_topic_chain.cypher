// description: Browser view: the longest topic chain, its events in time order and its semantic states over time (CURRENT_STATE marked)
// params: namespace
// returns: p
// mode: read
// usage in Neo4j Browser: :param namespace => 'demo'
MATCH (t:Topic {namespace: $namespace})
OPTIONAL MATCH (e:Event)-[:SUPPORTED_BY]->(t)
WHERE e.namespace = $namespace
WITH t, count(e) AS events
ORDER BY events DESC, t.id
LIMIT 1
CALL (t) {
  MATCH p = (t)-[:FIRST_TIMELINE_NODE]->(:Event)-[:TEMPORAL_NEXT*0..12]->(e:Event)
  WHERE e.namespace = $namespace
  RETURN p
  UNION
  MATCH p = (t)-[:INITIAL_STATE]->(:State)-[:SEMANTIC_NEXT*0..8]->(s:State)
  WHERE s.namespace = $namespace
  RETURN p
  UNION
  MATCH p = (t)-[:CURRENT_STATE]->(s:State)-[:EVIDENCED_BY]->(e:Event)
  WHERE s.namespace = $namespace AND e.namespace = $namespace
  RETURN p
}
RETURN p

// description: Browser view: the topic chain of one turn's event, its events in time order and its semantic states over time (CURRENT_STATE marked)
// params: namespace, source_id
// returns: p
// mode: read
// usage in Neo4j Browser: :param namespace => 'demo'; :param source_id => 'D1:3'
MATCH (turn:Event {namespace: $namespace})-[:SUPPORTED_BY]->(t:Topic)
USING INDEX t:Topic(namespace)
WHERE $source_id IN turn.source_ids AND t.namespace = $namespace
WITH t ORDER BY t.id LIMIT 1
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

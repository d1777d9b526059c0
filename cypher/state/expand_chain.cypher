// description: graph expansion of state recall from the given events: their topic-chain neighbours (TEMPORAL_NEXT, one step either way; $relation = 'TEMPORAL_NEXT') or their cross-topic neighbours (RELATED_EVENT with its similarity, at most $per_event; $relation = 'RELATED_EVENT'); $relation picks the branch and is never spliced into the query
// params: namespace, event_ids, relation, per_event
// returns: source, id, relation, similarity
// mode: read
// values: plain
UNWIND $event_ids AS eid
MATCH (e:Event {id: eid})
USING INDEX e:Event(id)
WHERE e.namespace = $namespace
CALL (e) {
  MATCH (e)-[:TEMPORAL_NEXT]-(n:Event)
  WHERE $relation = 'TEMPORAL_NEXT' AND n.namespace = $namespace
  RETURN n, 1.0 AS similarity
  UNION
  MATCH (e)-[r:RELATED_EVENT]-(n:Event)
  WHERE $relation = 'RELATED_EVENT' AND n.namespace = $namespace
  WITH n, r.similarity AS similarity ORDER BY similarity DESC, n.id LIMIT $per_event
  RETURN n, similarity
}
RETURN e.id AS source, n.id AS id, $relation AS relation, similarity
ORDER BY source, similarity DESC, id

// description: cross-topic RELATED_EVENT neighbours of the given events, with the edge similarity; entry by event id, at most the 20 most similar per event
// params: namespace, event_ids
// returns: parent, id, text, speaker, source_ids, occurred_at, topic_id, topic, similarity
// mode: read
UNWIND $event_ids AS eid
MATCH (e:Event {id: eid})
WHERE e.namespace = $namespace
CALL (e) {
  MATCH (e)-[r:RELATED_EVENT]-(n:Event)
  WHERE n.namespace = $namespace
  RETURN n, r.similarity AS similarity
  ORDER BY similarity DESC, n.id
  LIMIT 20
}
OPTIONAL MATCH (n)-[:SUPPORTED_BY]->(t)
WHERE t.namespace = $namespace
RETURN eid AS parent, n.id AS id, n.text AS text, n.speaker AS speaker, n.source_ids AS source_ids,
       n.occurred_at AS occurred_at, t.id AS topic_id, t.name AS topic, similarity
ORDER BY parent, similarity DESC, id

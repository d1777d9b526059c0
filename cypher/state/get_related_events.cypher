// description: cross-topic RELATED_EVENT neighbours of the given events, with the edge similarity
// params: namespace, event_ids
// returns: parent, id, text, speaker, source_ids, occurred_at, topic_id, topic, similarity
// mode: read
UNWIND $event_ids AS eid
MATCH (e:Event {id: eid})-[r:RELATED_EVENT]-(n:Event)
WHERE e.namespace = $namespace AND n.namespace = $namespace
OPTIONAL MATCH (n)-[:SUPPORTED_BY]->(t:Topic {namespace: $namespace})
RETURN eid AS parent, n.id AS id, n.text AS text, n.speaker AS speaker, n.source_ids AS source_ids,
       n.occurred_at AS occurred_at, t.id AS topic_id, t.name AS topic, r.similarity AS similarity
ORDER BY parent, similarity DESC, id

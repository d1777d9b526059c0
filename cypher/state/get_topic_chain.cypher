// description: inspection: one topic's first `limit` events in chain-key order (index seek on topic_id, sort_key), each with whether it is the FIRST_TIMELINE_NODE and its TEMPORAL_NEXT successor, so the caller can follow the chain
// params: namespace, topic_id, limit
// returns: id, occurred_at, source_ids, first, next_id
// mode: read
MATCH (t:Topic {id: $topic_id})
USING INDEX t:Topic(id)
WHERE t.namespace = $namespace
MATCH (e:Event)
USING INDEX SEEK e:Event(topic_id, sort_key)
WHERE e.topic_id = $topic_id AND e.sort_key IS NOT NULL AND e.namespace = $namespace
WITH t, e ORDER BY e.topic_id, e.sort_key LIMIT $limit
RETURN e.id AS id, e.occurred_at AS occurred_at, e.source_ids AS source_ids,
       EXISTS { (t)-[:FIRST_TIMELINE_NODE]->(e) } AS first,
       [(e)-[:TEMPORAL_NEXT]->(n) WHERE n.namespace = $namespace | n.id][0] AS next_id

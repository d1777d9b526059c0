// description: one topic's timeline from FIRST_TIMELINE_NODE along TEMPORAL_NEXT, in chain order
// params: namespace, topic_id
// returns: id, occurred_at, source_ids, position
// mode: read
MATCH (t:Topic {id: $topic_id})-[:FIRST_TIMELINE_NODE]->(f:Event)
WHERE t.namespace = $namespace AND f.namespace = $namespace
MATCH p = (f)-[:TEMPORAL_NEXT*0..]->(e:Event)
WHERE all(x IN nodes(p) WHERE x.namespace = $namespace)
RETURN e.id AS id, e.occurred_at AS occurred_at, e.source_ids AS source_ids, length(p) AS position
ORDER BY position

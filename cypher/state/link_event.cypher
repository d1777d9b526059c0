// description: insert one event into its topic's TEMPORAL_NEXT chain in event-time order (late events too); locks the topic so concurrent inserts serialise
// params: namespace, topic_id, event_id
// returns: predecessor, successor
// mode: write
MATCH (t:Topic {id: $topic_id})
WHERE t.namespace = $namespace
SET t.chain_version = coalesce(t.chain_version, 0) + 1
WITH t
MATCH (e:Event {id: $event_id})-[:SUPPORTED_BY]->(t)
WHERE e.namespace = $namespace
  AND NOT EXISTS { (t)-[:FIRST_TIMELINE_NODE]->(e) }
  AND NOT EXISTS { (:Event {namespace: $namespace})-[:TEMPORAL_NEXT]->(e) }
OPTIONAL MATCH (p:Event)-[:SUPPORTED_BY]->(t)
WHERE p.namespace = $namespace AND p <> e AND p.sort_key < e.sort_key
  AND (EXISTS { (t)-[:FIRST_TIMELINE_NODE]->(p) } OR EXISTS { (:Event {namespace: $namespace})-[:TEMPORAL_NEXT]->(p) })
WITH t, e, p ORDER BY p.sort_key DESC LIMIT 1
OPTIONAL MATCH (p)-[old:TEMPORAL_NEXT]->(s:Event {namespace: $namespace})
OPTIONAL MATCH (t)-[oldFirst:FIRST_TIMELINE_NODE]->(f:Event {namespace: $namespace})
WITH t, e, p, old, s, oldFirst, f
CALL {
  WITH t, e, p, old, s
  WITH t, e, p, old, s WHERE p IS NOT NULL
  DELETE old
  MERGE (p)-[:TEMPORAL_NEXT]->(e)
  FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | MERGE (e)-[:TEMPORAL_NEXT]->(s))
}
CALL {
  WITH t, e, p, oldFirst, f
  WITH t, e, p, oldFirst, f WHERE p IS NULL
  DELETE oldFirst
  MERGE (t)-[:FIRST_TIMELINE_NODE]->(e)
  FOREACH (_ IN CASE WHEN f IS NULL OR f = e THEN [] ELSE [1] END | MERGE (e)-[:TEMPORAL_NEXT]->(f))
}
RETURN p.id AS predecessor, CASE WHEN p IS NULL THEN f.id ELSE s.id END AS successor

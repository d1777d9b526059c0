// description: events within `hops` TEMPORAL_NEXT steps (either direction) of the given events on their topic chains; entry by event id, at most 6 neighbours per event (a chain event has one predecessor and one successor, hops <= 3)
// params: namespace, event_ids, hops
// returns: parent, id, text, speaker, source_ids, occurred_at, topic_id, topic, distance
// mode: read
UNWIND $event_ids AS eid
MATCH (e:Event {id: eid})
WHERE e.namespace = $namespace
CALL (e) {
  MATCH p = (e)-[:TEMPORAL_NEXT*1..3]-(n:Event)
  WHERE length(p) <= $hops AND all(x IN nodes(p) WHERE x.namespace = $namespace)
  WITH n, min(length(p)) AS distance
  RETURN n, distance
  ORDER BY distance, n.id
  LIMIT 6
}
OPTIONAL MATCH (n)-[:SUPPORTED_BY]->(t)
WHERE t.namespace = $namespace
RETURN eid AS parent, n.id AS id, n.text AS text, n.speaker AS speaker, n.source_ids AS source_ids,
       n.occurred_at AS occurred_at, t.id AS topic_id, t.name AS topic, distance
ORDER BY parent, distance, id

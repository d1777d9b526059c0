// description: inspection: states of the given topics (current, closed history and flagged conflicts) with evidence source ids, at most $limit per topic (latest first before ordering by time); only_current limits to CURRENT_STATE
// params: namespace, topic_ids, only_current, limit
// returns: id, content, value, condition, subject, valid_from, valid_to, conflict, current, topic_id, topic, source_ids
// mode: read
UNWIND $topic_ids AS tid
MATCH (t:Topic {id: tid})
WHERE t.namespace = $namespace
CALL (t) {
  MATCH (s:State)-[:SUPPORTED_BY]->(t)
  WHERE s.namespace = $namespace
  WITH t, s, EXISTS { (t)-[:CURRENT_STATE]->(s) } AS current
  WHERE current OR NOT $only_current
  WITH s, current ORDER BY s.valid_from DESC, s.id LIMIT $limit
  RETURN s, current
}
OPTIONAL MATCH (s)-[:EVIDENCED_BY]->(e:Event {namespace: $namespace})
WITH t, s, current, e ORDER BY e.sort_key
RETURN s.id AS id, s.content AS content, s.value AS value, s.condition AS condition,
       s.subject AS subject, s.valid_from AS valid_from, s.valid_to AS valid_to,
       coalesce(s.conflict, false) AS conflict, current, t.id AS topic_id, t.name AS topic,
       reduce(acc = [], x IN collect(e.source_ids) | acc + x) AS source_ids
ORDER BY topic_id, valid_from, id

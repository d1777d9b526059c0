// description: states of the given topics (current, closed history and flagged conflicts) with evidence source ids; only_current limits to CURRENT_STATE; entry by topic id, then the topic's 100 latest states by valid_from (index seek on topic_id, valid_from) plus its current one, each with the source ids of at most 50 evidence events
// params: namespace, topic_ids, only_current
// returns: id, content, value, condition, subject, valid_from, valid_to, conflict, current, topic_id, topic, source_ids
// mode: read
UNWIND $topic_ids AS tid
MATCH (t:Topic {id: tid})
USING INDEX t:Topic(id)
WHERE t.namespace = $namespace
CALL (t) {
  MATCH (s:State)
  USING INDEX SEEK s:State(topic_id, valid_from)
  WHERE s.topic_id = t.id AND s.valid_from IS NOT NULL AND s.namespace = $namespace
    AND NOT $only_current
  WITH s ORDER BY s.topic_id DESC, s.valid_from DESC, s.id DESC LIMIT 100
  RETURN s
  UNION
  MATCH (t)-[:CURRENT_STATE]->(s)
  WHERE s.namespace = $namespace
  RETURN s
}
WITH t, s, EXISTS { (t)-[:CURRENT_STATE]->(s) } AS current
WHERE EXISTS { (s)-[:SUPPORTED_BY]->(t) }
CALL (s) {
  OPTIONAL MATCH (s)-[:EVIDENCED_BY]->(e)
  WHERE e.namespace = $namespace
  WITH e LIMIT 50
  WITH e ORDER BY e.sort_key
  RETURN reduce(acc = [], x IN collect(e.source_ids) | acc + x) AS source_ids
}
RETURN s.id AS id, s.content AS content, s.value AS value, s.condition AS condition,
       s.subject AS subject, s.valid_from AS valid_from, s.valid_to AS valid_to,
       coalesce(s.conflict, false) AS conflict, current, t.id AS topic_id, t.name AS topic,
       source_ids
ORDER BY topic_id, valid_from, id

// description: the semantic states of the topics of the given events (EMIR2 state layer): per topic its CURRENT_STATE and, with $history, its other states (closed ones and flagged conflicts, latest first, at most $per_topic: read in (topic_id, valid_from) index order, so a topic of any length costs $per_topic states; a state's topic_id is the topic it is SUPPORTED_BY), and per state the events that evidence it (at most $per_state, in event-time order); bounded by the topics of $event_ids; $since / $until (epoch microseconds of UTC instants, or null: open) keep only states whose valid_from (the time of the event that established them) has since <= valid_from < until, before the per-topic limit, and evidence events that occurred in the window
// params: namespace, event_ids, history, per_topic, per_state, since, until
// returns: id, content, value, condition, subject, valid_from, valid_to, conflict, current, topic_id, topic, evidence, source_ids
// mode: read
// values: plain
UNWIND $event_ids AS eid
MATCH (e:Event {id: eid})-[:SUPPORTED_BY]->(t:Topic)
USING INDEX e:Event(id)
WHERE e.namespace = $namespace AND t.namespace = $namespace
WITH DISTINCT t
CALL (t) {
  MATCH (t)-[:CURRENT_STATE]->(s:State)
  WHERE s.namespace = $namespace
    AND ($since IS NULL OR s.valid_from.epochMillis * 1000 + s.valid_from.microsecond % 1000 >= $since)
    AND ($until IS NULL OR s.valid_from.epochMillis * 1000 + s.valid_from.microsecond % 1000 < $until)
  RETURN s, true AS current
  UNION
  MATCH (s:State)
  USING INDEX SEEK s:State(topic_id, valid_from)
  WHERE s.topic_id = CASE WHEN $history THEN t.id END AND s.valid_from IS NOT NULL
    AND s.namespace = $namespace AND NOT EXISTS { (t)-[:CURRENT_STATE]->(s) }
    AND ($since IS NULL OR s.valid_from.epochMillis * 1000 + s.valid_from.microsecond % 1000 >= $since)
    AND ($until IS NULL OR s.valid_from.epochMillis * 1000 + s.valid_from.microsecond % 1000 < $until)
  WITH s ORDER BY s.topic_id DESC, s.valid_from DESC, s.id LIMIT $per_topic
  RETURN s, false AS current
}
CALL (s) {
  MATCH (s)-[:EVIDENCED_BY]->(x:Event)
  WHERE x.namespace = $namespace
    AND ($since IS NULL OR x.occurred_at.epochMillis * 1000 + x.occurred_at.microsecond % 1000 >= $since)
    AND ($until IS NULL OR x.occurred_at.epochMillis * 1000 + x.occurred_at.microsecond % 1000 < $until)
  WITH x ORDER BY x.sort_key LIMIT $per_state
  RETURN collect(x.id) AS evidence, reduce(acc = [], ids IN collect(x.source_ids) | acc + ids) AS source_ids
}
RETURN s.id AS id, s.content AS content, s.value AS value, s.condition AS condition,
       s.subject AS subject, s.valid_from AS valid_from, s.valid_to AS valid_to,
       coalesce(s.conflict, false) AS conflict, current, t.id AS topic_id, t.name AS topic,
       evidence, source_ids
ORDER BY topic_id, valid_from, id

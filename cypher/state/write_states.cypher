// description: the net state evolution of a batch (computed by graphmem.state.evolution.plan_evidence under the topic locks; every edge created involves a new event or state): new States (SUPPORTED_BY their topic, EVIDENCED_BY their event; a row without an embedding takes its event's: the vector of a state asserted by a turn is that turn's window vector, sent once with the event), confirmations (EVIDENCED_BY, evidence_count), stored states closed (valid_to) or flagged (conflict), CURRENT_STATE / INITIAL_STATE moved (the topic's former edges of that type deleted, so exactly one remains), SEMANTIC_NEXT pairs unlinked and linked, CONFLICTS_WITH edges; times (valid_from, valid_to) are ISO-8601 text (graphmem.timeparse.time_param)
// params: namespace, states, stored, evidence, current, initial, unlink, link, conflicts
// returns: created
// mode: write
CALL () {
  UNWIND $states AS row
  MATCH (t:Topic {id: row.topic_id})
  USING INDEX t:Topic(id)
  WHERE t.namespace = $namespace
  MATCH (ev:Event {id: row.event_id})
  USING INDEX ev:Event(id)
  WHERE ev.namespace = $namespace
  CREATE (s:State {id: row.id})
  SET s.namespace = $namespace, s.conversation = row.conversation, s.content = row.content,
      s.value = row.value, s.condition = row.condition, s.subject = row.subject,
      s.mutable = row.mutable, s.valid_from = datetime(row.valid_from), s.valid_to = datetime(row.valid_to),
      s.embedding = coalesce(row.embedding, ev.embedding), s.conflict = row.conflict,
      s.evidence_count = row.evidence_count, s.topic_id = t.id, s.created_at = datetime(),
      s.session = row.session
  CREATE (s)-[:SUPPORTED_BY]->(t)
  CREATE (s)-[:EVIDENCED_BY]->(ev)
  RETURN count(s) AS created
}
CALL () {
  UNWIND $stored AS row
  MATCH (s:State {id: row.id})
  USING INDEX s:State(id)
  WHERE s.namespace = $namespace
  SET s.valid_to = CASE WHEN row.set_valid_to THEN datetime(row.valid_to) ELSE s.valid_to END,
      s.conflict = CASE WHEN row.conflict THEN true ELSE s.conflict END,
      s.evidence_count = coalesce(s.evidence_count, 1) + row.added_evidence
}
CALL () {
  UNWIND $evidence AS pair
  MATCH (s:State {id: pair[0]})
  USING INDEX s:State(id)
  WHERE s.namespace = $namespace
  MATCH (ev:Event {id: pair[1]})
  USING INDEX ev:Event(id)
  WHERE ev.namespace = $namespace
  CREATE (s)-[:EVIDENCED_BY]->(ev)
}
CALL () {
  UNWIND $current AS row
  MATCH (t:Topic {id: row.topic_id})
  USING INDEX t:Topic(id)
  WHERE t.namespace = $namespace
  OPTIONAL MATCH (t)-[old:CURRENT_STATE]->(o)
  WHERE o.namespace = $namespace
  DELETE old
  WITH DISTINCT t, row
  MATCH (s:State {id: row.new})
  USING INDEX s:State(id)
  WHERE s.namespace = $namespace
  MERGE (t)-[:CURRENT_STATE]->(s)
}
CALL () {
  UNWIND $initial AS row
  MATCH (t:Topic {id: row.topic_id})
  USING INDEX t:Topic(id)
  WHERE t.namespace = $namespace
  OPTIONAL MATCH (t)-[old:INITIAL_STATE]->(o)
  WHERE o.namespace = $namespace
  DELETE old
  WITH DISTINCT t, row
  MATCH (s:State {id: row.new})
  USING INDEX s:State(id)
  WHERE s.namespace = $namespace
  MERGE (t)-[:INITIAL_STATE]->(s)
}
CALL () {
  UNWIND $unlink AS pair
  MATCH (a:State {id: pair[0]})-[r:SEMANTIC_NEXT]->(b:State {id: pair[1]})
  USING INDEX a:State(id)
  WHERE a.namespace = $namespace AND b.namespace = $namespace
  DELETE r
}
CALL () {
  UNWIND $link AS pair
  MATCH (a:State {id: pair[0]})
  USING INDEX a:State(id)
  WHERE a.namespace = $namespace
  MATCH (b:State {id: pair[1]})
  USING INDEX b:State(id)
  WHERE b.namespace = $namespace
  MERGE (a)-[:SEMANTIC_NEXT]->(b)
}
CALL () {
  UNWIND $conflicts AS pair
  MATCH (a:State {id: pair[0]})
  USING INDEX a:State(id)
  WHERE a.namespace = $namespace
  MATCH (b:State {id: pair[1]})
  USING INDEX b:State(id)
  WHERE b.namespace = $namespace
  CREATE (a)-[:CONFLICTS_WITH]->(b)
}
RETURN created

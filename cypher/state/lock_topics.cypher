// description: take the write lock of every topic a batch touches (in id order, so concurrent writers queue instead of deadlocking), creating the new ones (MERGE on the deterministic id; a topic founded by its first event keeps that event's vector), and the write lock of the stored session neighbours the batch links to; then read, under the lock, each topic's chain head and its current and initial state
// params: namespace, rows, event_ids
// returns: id, created, first_id, current, initial_id, initial_valid_from
// mode: write
CALL () {
  UNWIND $event_ids AS eid
  MATCH (n:Event {id: eid})
  USING INDEX n:Event(id)
  WHERE n.namespace = $namespace
  SET n._lock = true
  REMOVE n._lock
}
UNWIND $rows AS row
MERGE (t:Topic {id: row.id})
ON CREATE SET t.namespace = $namespace, t.conversation = row.conversation, t.key = row.key,
              t.name = row.name, t.subject = row.subject, t.embedding = row.embedding,
              t.created_seq = row.seq, t.created_at = datetime(), t.chain_version = 0,
              t._new = true
SET t.chain_version = coalesce(t.chain_version, 0) + 1
WITH t, coalesce(t._new, false) AS created
REMOVE t._new
WITH t, created
WHERE t.namespace = $namespace
RETURN t.id AS id, created,
       [(t)-[:FIRST_TIMELINE_NODE]->(f) WHERE f.namespace = $namespace | f.id][0] AS first_id,
       [(t)-[:CURRENT_STATE]->(c) WHERE c.namespace = $namespace |
         c {.id, .value, .embedding, .mutable, .valid_from, .valid_to, .session,
            conflict: coalesce(c.conflict, false)}][0] AS current,
       [(t)-[:INITIAL_STATE]->(i) WHERE i.namespace = $namespace | i.id][0] AS initial_id,
       [(t)-[:INITIAL_STATE]->(i) WHERE i.namespace = $namespace | i.valid_from][0] AS initial_valid_from

// description: take the write lock of the batch's conversation first (MERGE its ConversationLock node: concurrent batches of one conversation serialise, so the session neighbours read next are the ones every earlier batch stored; its unit_version -- random at creation -- is raised, as every batch writes event vectors: the token of the retrieval engine's vector cache), then of every topic a batch touches (in id order, so concurrent writers queue instead of deadlocking), creating the new ones (MERGE on the deterministic id; a topic founded by its first event keeps that event's vector), and the write lock of the stored session neighbours the batch links to; then read, under the lock, each topic's chain head and its current and initial state, and the conversation's batch count (this batch included)
// params: namespace, lock_id, conversation, rows, event_ids
// returns: id, created, first_id, current, initial_id, initial_valid_from, batches
// mode: write
CALL () {
  MERGE (c:ConversationLock {id: $lock_id})
  ON CREATE SET c.namespace = $namespace, c.conversation = $conversation, c.created_at = datetime()
  SET c.batches = coalesce(c.batches, 0) + 1,
      c.unit_version = coalesce(c.unit_version, toInteger(rand() * 1099511627776)) + 1
  RETURN c.batches AS batches
}
CALL () {
  UNWIND $event_ids AS eid
  MATCH (n:Event {id: eid})
  USING INDEX n:Event(id)
  WHERE n.namespace = $namespace
  SET n._lock = true
  REMOVE n._lock
}
UNWIND $rows AS row
WITH batches, row
MERGE (t:Topic {id: row.id})
ON CREATE SET t.namespace = $namespace, t.conversation = row.conversation, t.key = row.key,
              t.name = row.name, t.subject = row.subject, t.embedding = row.embedding,
              t.created_seq = row.seq, t.created_at = datetime(), t.chain_version = 0,
              t._new = true
SET t.chain_version = coalesce(t.chain_version, 0) + 1
WITH batches, t, coalesce(t._new, false) AS created
REMOVE t._new
WITH batches, t, created
WHERE t.namespace = $namespace
RETURN t.id AS id, created, batches,
       [(t)-[:FIRST_TIMELINE_NODE]->(f) WHERE f.namespace = $namespace | f.id][0] AS first_id,
       [(t)-[:CURRENT_STATE]->(c) WHERE c.namespace = $namespace |
         c {.id, .value, .embedding, .mutable, .valid_from, .valid_to, .session,
            conflict: coalesce(c.conflict, false)}][0] AS current,
       [(t)-[:INITIAL_STATE]->(i) WHERE i.namespace = $namespace | i.id][0] AS initial_id,
       [(t)-[:INITIAL_STATE]->(i) WHERE i.namespace = $namespace | i.valid_from][0] AS initial_valid_from

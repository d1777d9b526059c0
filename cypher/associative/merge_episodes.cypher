// description: MERGE Episode nodes (one per conversation turn) on their deterministic id; idempotent; created = nodes new in this call
// params: namespace, rows
// returns: created
// mode: write
UNWIND $rows AS row
MERGE (e:Episode {id: row.id})
ON CREATE SET e.namespace = $namespace, e.created_at = datetime(), e._new = true
SET e.text = row.text,
    e.speaker = row.speaker,
    e.source_id = row.source_id,
    e.conversation_id = row.conversation_id,
    e.session = row.session,
    e.position = row.position,
    e.occurred_at = datetime(row.occurred_at),
    e.embedding = row.embedding
WITH collect(DISTINCT e) AS nodes
CALL {
  WITH nodes
  UNWIND nodes AS n
  WITH n WHERE n._new = true
  REMOVE n._new
  RETURN count(n) AS created
}
RETURN created

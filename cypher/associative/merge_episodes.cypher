// description: MERGE Episode nodes (one per conversation turn) on their deterministic id; idempotent
// params: namespace, rows
// returns: episodes
// mode: write
UNWIND $rows AS row
MERGE (e:Episode {id: row.id})
ON CREATE SET e.namespace = $namespace, e.created_at = datetime()
SET e.text = row.text,
    e.speaker = row.speaker,
    e.source_id = row.source_id,
    e.conversation_id = row.conversation_id,
    e.session = row.session,
    e.position = row.position,
    e.occurred_at = datetime(row.occurred_at),
    e.embedding = row.embedding
RETURN count(e) AS episodes

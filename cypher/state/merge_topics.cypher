// description: create topic chain heads (MERGE on deterministic id; no change when present)
// params: namespace, rows
// returns: created
// mode: write
UNWIND $rows AS row
MERGE (t:Topic {id: row.id})
ON CREATE SET t.namespace = $namespace, t.conversation = row.conversation, t.key = row.key,
              t.name = row.name, t.subject = row.subject, t.embedding = row.embedding,
              t.created_seq = row.seq, t.created_at = datetime(), t.chain_version = 0,
              t._new = true
WITH t, coalesce(t._new, false) AS created
REMOVE t._new
RETURN sum(CASE WHEN created THEN 1 ELSE 0 END) AS created

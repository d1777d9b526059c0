// description: benchmark bulk write: plain Event memory units (scaled filler tenants and the raw UNWIND reference), MERGE on id
// params: namespace, rows
// returns: written
// mode: write
UNWIND $rows AS row
MERGE (e:Event {id: row.id})
ON CREATE SET e.namespace = $namespace, e.conversation = row.conversation, e.text = row.text,
              e.speaker = row.speaker, e.source_ids = row.source_ids,
              e.occurred_at = row.occurred_at, e.embedding = row.embedding,
              e.created_at = datetime()
RETURN count(e) AS written

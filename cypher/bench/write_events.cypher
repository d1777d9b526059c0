// description: benchmark bulk write: plain Event memory units (scaled filler tenants, with the retrieval engine's lexical properties so they crowd its full-text index like real tenants; and the raw UNWIND reference, without them), MERGE on id; the time is ISO-8601 text (graphmem.timeparse.time_param), as graphmem's own writes send it; every vector written gets a new random vector_stamp (the in-process vector cache of graphmem.retrieval.vectors sees the change)
// params: namespace, rows
// returns: written
// mode: write
UNWIND $rows AS row
MERGE (e:Event {id: row.id})
ON CREATE SET e.namespace = $namespace, e.conversation = row.conversation, e.text = row.text,
              e.speaker = row.speaker, e.source_ids = row.source_ids,
              e.occurred_at = datetime(row.occurred_at), e.embedding = row.embedding, e.vector_stamp = toInteger(rand() * 1099511627776),
              e.lexical_terms = row.lexical_terms, e.lexical_length = row.lexical_length,
              e.ns_token = row.ns_token, e.created_at = datetime()
RETURN count(e) AS written

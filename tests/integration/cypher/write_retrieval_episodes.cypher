// description: test helper: write Episode retrieval units (engine properties from unit_rows) and the NEXT_TURN edges between consecutive units of a session (rows in order; prev_id / next_id name the session neighbours); every vector written gets a new random vector_stamp (the in-process vector cache of graphmem.retrieval.vectors sees the change)
// params: namespace, rows
// returns: written
// mode: write
UNWIND $rows AS row
MERGE (u:Episode {id: row.id})
SET u.namespace = $namespace, u.text = row.text, u.speaker = row.speaker,
    u.source_ids = row.source_ids, u.lexical_text = row.lexical_text,
    u.lexical_terms = row.lexical_terms, u.lexical_length = row.lexical_length,
    u.ns_token = row.ns_token, u.is_cue = row.is_cue, u.is_smalltalk = row.is_smalltalk,
    u.embedding = row.embedding, u.vector_stamp = toInteger(rand() * 1099511627776), u.prev_id = row.prev_id, u.next_id = row.next_id
WITH u, row
CALL {
  WITH u, row
  WITH u, row WHERE row.prev_id IS NOT NULL
  MATCH (p:Episode {id: row.prev_id, namespace: $namespace})
  MERGE (p)-[:NEXT_TURN]->(u)
}
RETURN count(u) AS written

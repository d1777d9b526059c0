// description: MERGE Episode nodes (one per conversation turn) on their deterministic id with the retrieval-unit properties of graphmem.retrieval.unit_rows (the window embedding and a long message's passage_spans / passage_embeddings come later, set_episode_embeddings, in the same transaction) and the NEXT_TURN edge from the previous turn of the session; idempotent; created = nodes new in this call
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
    e.lexical_text = row.lexical_text,
    e.lexical_terms = row.lexical_terms,
    e.lexical_length = row.lexical_length,
    e.ns_token = row.ns_token,
    e.is_cue = row.is_cue,
    e.is_smalltalk = row.is_smalltalk,
    e.prev_id = row.prev_id,
    e.next_id = row.next_id
WITH e, row
CALL (e, row) {
  WITH e, row WHERE row.prev_id IS NOT NULL
  MATCH (p:Episode {id: row.prev_id})
  USING INDEX p:Episode(id)
  WHERE p.namespace = $namespace
  MERGE (p)-[:NEXT_TURN]->(e)
}
WITH collect(DISTINCT e) AS nodes
CALL (nodes) {
  UNWIND nodes AS n
  WITH n WHERE n._new = true
  REMOVE n._new
  RETURN count(n) AS created
}
RETURN created

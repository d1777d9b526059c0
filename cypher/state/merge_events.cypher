// description: create a batch's events (episodic units, each with the retrieval-unit properties of graphmem.retrieval.unit_rows: lexical text and terms, namespace token, cue / small-talk flags, session neighbours prev_id / next_id, window-text embedding) and attach each to its topic with SUPPORTED_BY
// params: namespace, rows
// returns: created
// mode: write
UNWIND $rows AS row
MATCH (t:Topic {id: row.topic_id})
WHERE t.namespace = $namespace
MERGE (e:Event {id: row.id})
ON CREATE SET e.namespace = $namespace, e.conversation = row.conversation, e.text = row.text,
              e.speaker = row.speaker, e.subject = row.subject, e.session = row.session,
              e.source_ids = row.source_ids, e.occurred_at = row.occurred_at, e.seq = row.seq,
              e.sort_key = row.sort_key, e.embedding = row.embedding, e.topic_id = row.topic_id,
              e.lexical_text = row.lexical_text, e.lexical_terms = row.lexical_terms,
              e.lexical_length = row.lexical_length, e.ns_token = row.ns_token,
              e.is_cue = row.is_cue, e.is_smalltalk = row.is_smalltalk,
              e.prev_id = row.prev_id, e.next_id = row.next_id,
              e.created_at = datetime(), e._new = true
MERGE (e)-[:SUPPORTED_BY]->(t)
WITH e, coalesce(e._new, false) AS created
REMOVE e._new
RETURN sum(CASE WHEN created THEN 1 ELSE 0 END) AS created

// description: create a batch's new events (checked absent under the topic locks; a concurrent duplicate fails the uniqueness constraint, and the batch is prepared again) as episodic units with the retrieval-unit properties of graphmem.retrieval.unit_rows (lexical text and terms, namespace token, cue / small-talk flags, session neighbours prev_id / next_id, window-text embedding; a long message's passages: passage_spans, the flat [start, end) character spans, and passage_embeddings, their vectors concatenated (passages x d floats), both null -- no property -- for a short message, graphmem.retrieval.passages), each attached to its topic with SUPPORTED_BY (a topic the event founds with the event's own vector -- row.founds_topic: created by state/lock_topics without one -- takes it from the event, so the vector crosses the wire once); row.occurred_at is ISO-8601 text (graphmem.timeparse.time_param); every vector written gets a new random vector_stamp (the in-process vector cache of graphmem.retrieval.vectors sees the change); row.message_json (the message's full serialised form, or null: no property) is kept for chat-history replay
// params: namespace, rows
// returns: created
// mode: write
UNWIND $rows AS row
MATCH (t:Topic {id: row.topic_id})
USING INDEX t:Topic(id)
WHERE t.namespace = $namespace
CREATE (e:Event {id: row.id})
SET e.namespace = $namespace, e.conversation = row.conversation, e.text = row.text,
    e.speaker = row.speaker, e.subject = row.subject, e.session = row.session,
    e.source_ids = row.source_ids, e.occurred_at = datetime(row.occurred_at), e.seq = row.seq,
    e.sort_key = row.sort_key, e.embedding = row.embedding, e.vector_stamp = toInteger(rand() * 1099511627776), e.topic_id = row.topic_id,
    e.passage_spans = row.passage_spans, e.passage_embeddings = row.passage_embeddings,
    e.lexical_text = row.lexical_text, e.lexical_terms = row.lexical_terms,
    e.lexical_length = row.lexical_length, e.ns_token = row.ns_token,
    e.is_cue = row.is_cue, e.is_smalltalk = row.is_smalltalk,
    e.prev_id = row.prev_id, e.next_id = row.next_id, e.message_json = row.message_json,
    e.created_at = datetime()
CREATE (e)-[:SUPPORTED_BY]->(t)
FOREACH (_ IN CASE WHEN row.founds_topic THEN [1] ELSE [] END | SET t.embedding = e.embedding)
RETURN count(e) AS created

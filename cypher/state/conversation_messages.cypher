// description: every stored message (Event) of one conversation in conversation order (event time, then arrival sequence) with what a rebuild needs to add it again (text, speaker, session, time, arrival sequence, serialised form); for graphmem.agent.forget
// params: namespace, conversation
// returns: source_id, text, speaker, session, occurred_at, seq, message_json
// mode: read
MATCH (e:Event)
WHERE e.namespace = $namespace AND e.conversation = $conversation
RETURN e.source_ids[0] AS source_id, e.text AS text, e.speaker AS speaker,
       e.session AS session, e.occurred_at AS occurred_at, e.seq AS seq,
       e.message_json AS message_json
ORDER BY e.sort_key, e.seq

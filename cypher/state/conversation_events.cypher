// description: the events of one conversation in conversation order (event time, then arrival sequence), for chat-history views (graphmem.facade.GraphMemory.messages); message_json is the message's full serialised form when it was stored with one, else null; paged by skip/limit
// params: namespace, conversation, skip, limit
// returns: id, text, speaker, conversation, session, source_ids, occurred_at, seq, message_json
// mode: read
MATCH (e:Event)
WHERE e.namespace = $namespace AND e.conversation = $conversation
RETURN e.id AS id, e.text AS text, e.speaker AS speaker, e.conversation AS conversation,
       e.session AS session, e.source_ids AS source_ids, e.occurred_at AS occurred_at,
       e.seq AS seq, e.message_json AS message_json
ORDER BY e.sort_key, e.seq
SKIP $skip LIMIT $limit

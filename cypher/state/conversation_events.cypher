// description: the events of one conversation in conversation order (event time, then arrival sequence), for chat-history views; paged by skip/limit
// params: namespace, conversation, skip, limit
// returns: id, text, speaker, session, source_ids, occurred_at, seq
// mode: read
MATCH (e:Event)
WHERE e.namespace = $namespace AND e.conversation = $conversation
RETURN e.id AS id, e.text AS text, e.speaker AS speaker, e.session AS session,
       e.source_ids AS source_ids, e.occurred_at AS occurred_at, e.seq AS seq
ORDER BY e.sort_key, e.seq
SKIP $skip LIMIT $limit

// description: the speaker, text, session and first source id of every event of one conversation in conversation order (event time, then arrival sequence), paged by skip/limit: what graphmem.state.people.resolve_people reads (plain values only: no time or message_json to convert, a third of the cost of state/conversation_events)
// params: namespace, conversation, skip, limit
// returns: id, speaker, text, session, source_id
// mode: read
// values: plain
MATCH (e:Event)
WHERE e.namespace = $namespace AND e.conversation = $conversation
RETURN e.id AS id, e.speaker AS speaker, e.text AS text, e.session AS session,
       coalesce(e.source_ids[0], e.id) AS source_id
ORDER BY e.sort_key, e.seq
SKIP $skip LIMIT $limit

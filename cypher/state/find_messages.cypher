// description: the stored messages (Events) of one namespace that a forget selects: every given selector must match (message_ids: the caller's message ids, the event's first source id; conversation: the event's conversation; speaker: its speaker; a null selector matches every event); for graphmem.agent.forget
// params: namespace, message_ids, conversation, speaker
// returns: conversation, source_id
// mode: read
MATCH (e:Event)
WHERE e.namespace = $namespace
  AND ($conversation IS NULL OR e.conversation = $conversation)
  AND ($speaker IS NULL OR e.speaker = $speaker)
  AND ($message_ids IS NULL OR e.source_ids[0] IN $message_ids)
RETURN e.conversation AS conversation, e.source_ids[0] AS source_id
ORDER BY conversation, source_id

// description: the stored messages (Episodes) of one namespace that a forget selects: every given selector must match (message_ids: the episode's source id; conversation: its conversation_id; speaker: its speaker; a null selector matches every episode); for graphmem.agent.forget
// params: namespace, message_ids, conversation, speaker
// returns: conversation, source_id
// mode: read
MATCH (e:Episode)
WHERE e.namespace = $namespace
  AND ($conversation IS NULL OR e.conversation_id = $conversation)
  AND ($speaker IS NULL OR e.speaker = $speaker)
  AND ($message_ids IS NULL OR e.source_id IN $message_ids)
RETURN e.conversation_id AS conversation, e.source_id AS source_id
ORDER BY conversation, source_id

// description: the latest stored Episode of a conversation positioned before a given position (the timeline tail an incremental add chains after)
// params: namespace, conversation_id, before
// returns: id, position
// mode: read
MATCH (e:Episode)
WHERE e.namespace = $namespace AND e.conversation_id = $conversation_id AND e.position < $before
RETURN e.id AS id, e.position AS position
ORDER BY e.position DESC
LIMIT 1

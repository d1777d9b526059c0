// description: the latest event of one conversation (by event time, then arrival sequence): its time, for messages that come without a timestamp
// params: namespace, conversation
// returns: id, occurred_at, seq
// mode: read
MATCH (e:Event)
WHERE e.namespace = $namespace AND e.conversation = $conversation
RETURN e.id AS id, e.occurred_at AS occurred_at, e.seq AS seq
ORDER BY e.sort_key DESC
LIMIT 1

// description: topic chain heads of one conversation (for heuristic topic assignment)
// params: namespace, conversation
// returns: id, key, subject, name, embedding
// mode: read
MATCH (t:Topic {namespace: $namespace})
WHERE t.conversation = $conversation
RETURN t.id AS id, t.key AS key, t.subject AS subject, t.name AS name, t.embedding AS embedding
ORDER BY t.created_seq, t.id

// description: take the write lock of the given conversations in associative memory (their Timeline nodes, which every ingest batch of a conversation locks first: a concurrent add waits until this transaction ends); returns how many were locked; for graphmem.agent.forget, before it re-reads and deletes the conversations in the same transaction
// params: namespace, conversations
// returns: locked
// mode: write
MATCH (t:Timeline)
WHERE t.namespace = $namespace AND t.conversation_id IN $conversations
SET t._lock = true
REMOVE t._lock
RETURN count(t) AS locked

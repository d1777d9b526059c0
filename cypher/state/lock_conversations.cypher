// description: take the write lock of the given conversations in state memory (their ConversationLock nodes, which every ingest batch of a conversation locks first: a concurrent add waits until this transaction ends); returns how many were locked; for graphmem.agent.forget, before it re-reads and deletes the conversations in the same transaction
// params: namespace, conversations
// returns: locked
// mode: write
MATCH (c:ConversationLock)
WHERE c.namespace = $namespace AND c.conversation IN $conversations
SET c._lock = true
REMOVE c._lock
RETURN count(c) AS locked

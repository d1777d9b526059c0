// description: take the write lock of a conversation before its Person nodes are replaced (the ConversationLock every state batch of the conversation takes first, so two replacements of one conversation serialise and each reads every event stored before it) and raise the unit_version of the conversation's write locks (its ConversationLock and, when associative memory holds the conversation, its Timeline): the token under which the retrieval engine caches a namespace's person aliases (graphmem.retrieval.aliases), so every engine sees the new people at its next round; no row when the conversation has no lock (nothing stored)
// params: namespace, lock_id, conversation
// returns: locked
// mode: write
MATCH (c:ConversationLock {id: $lock_id})
USING INDEX c:ConversationLock(id)
WHERE c.namespace = $namespace
SET c.unit_version = coalesce(c.unit_version, toInteger(rand() * 1099511627776)) + 1
WITH c
CALL (c) {
  MATCH (t:Timeline {namespace: $namespace})
  WHERE t.conversation_id = $conversation
  SET t.unit_version = coalesce(t.unit_version, toInteger(rand() * 1099511627776)) + 1
  RETURN count(t) AS timelines
}
RETURN count(c) AS locked

// description: how many batches of a conversation were written (its ConversationLock counter, 0 before the first): a batch prepared at count n that finds n + 1 under the lock knows no other batch of the conversation landed meanwhile
// params: namespace, lock_id
// returns: batches
// mode: read
OPTIONAL MATCH (c:ConversationLock {id: $lock_id})
USING INDEX c:ConversationLock(id)
WHERE c.namespace = $namespace
RETURN coalesce(c.batches, 0) AS batches

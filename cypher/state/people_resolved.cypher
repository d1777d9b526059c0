// description: record on a conversation's ConversationLock how many events its people were last resolved from (people_events: graphmem.state.people_store.people_due compares the conversation's events with it), in the transaction that replaced its Person nodes
// params: namespace, lock_id, events
// returns: locks
// mode: write
MATCH (c:ConversationLock {id: $lock_id})
USING INDEX c:ConversationLock(id)
WHERE c.namespace = $namespace
SET c.people_events = $events
RETURN count(c) AS locks

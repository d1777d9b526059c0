// description: whether the people of one conversation are due to be resolved again (graphmem.state.people_store.people_due): its stored events now and the events there were at its last resolution (people_events on its ConversationLock; null: never resolved); no row when the conversation has no lock
// params: namespace, lock_id, conversation
// returns: events, people_events
// mode: read
// values: plain
MATCH (c:ConversationLock {id: $lock_id})
USING INDEX c:ConversationLock(id)
WHERE c.namespace = $namespace
CALL (c) {
  MATCH (e:Event)
  WHERE e.namespace = $namespace AND e.conversation = $conversation
  RETURN count(e) AS events
}
RETURN events, c.people_events AS people_events

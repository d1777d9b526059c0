// description: delete everything state memory holds of the given conversations -- their Events (with every edge: SUPPORTED_BY, TEMPORAL_NEXT, NEXT_TURN, RELATED_EVENT, also to events of other conversations, MENTIONS, EVIDENCED_BY), States, Topics, Persons and ConversationLock -- in one statement (so a reader sees all of a conversation or none of it); the vector cache sees the change through the conversation locks' count; for graphmem.agent.forget
// params: namespace, conversations
// returns: deleted
// mode: write
CALL () {
  MATCH (n:Event)
  WHERE n.namespace = $namespace AND n.conversation IN $conversations
  DETACH DELETE n
  RETURN count(*) AS events
}
CALL () {
  MATCH (n:State)
  WHERE n.namespace = $namespace AND n.conversation IN $conversations
  DETACH DELETE n
  RETURN count(*) AS states
}
CALL () {
  MATCH (n:Topic)
  WHERE n.namespace = $namespace AND n.conversation IN $conversations
  DETACH DELETE n
  RETURN count(*) AS topics
}
CALL () {
  MATCH (n:Person)
  WHERE n.namespace = $namespace AND n.conversation_id IN $conversations
  DETACH DELETE n
  RETURN count(*) AS people
}
CALL () {
  MATCH (n:ConversationLock)
  WHERE n.namespace = $namespace AND n.conversation IN $conversations
  DETACH DELETE n
  RETURN count(*) AS locks
}
RETURN events + states + topics + people + locks AS deleted

// description: structural invariants of the namespace: topics, events, states, conversation locks, persons, topics whose CURRENT_STATE count is not 1, events off their chain
// params: namespace
// returns: topics, events, states, locks, persons, bad_current, unchained
// mode: read
CALL { MATCH (t:Topic {namespace: $namespace}) RETURN count(t) AS topics }
CALL { MATCH (e:Event {namespace: $namespace}) RETURN count(e) AS events }
CALL { MATCH (s:State {namespace: $namespace}) RETURN count(s) AS states }
CALL { MATCH (c:ConversationLock {namespace: $namespace}) RETURN count(c) AS locks }
CALL { MATCH (p:Person {namespace: $namespace}) WHERE p.conversation_id IS NOT NULL RETURN count(p) AS persons }
CALL {
  MATCH (t:Topic {namespace: $namespace})
  WITH t, COUNT { (t)<-[:SUPPORTED_BY]-(:State {namespace: $namespace}) } AS states,
       COUNT { (t)-[:CURRENT_STATE]->(:State {namespace: $namespace}) } AS current
  WHERE states > 0 AND current <> 1
  RETURN count(t) AS bad_current
}
CALL {
  MATCH (e:Event {namespace: $namespace})-[:SUPPORTED_BY]->(t:Topic)
  WHERE t.namespace = $namespace AND NOT EXISTS { (t)-[:FIRST_TIMELINE_NODE]->(e) } AND NOT EXISTS { (:Event {namespace: $namespace})-[:TEMPORAL_NEXT]->(e) }
  RETURN count(e) AS unchained
}
RETURN topics, events, states, locks, persons, bad_current, unchained

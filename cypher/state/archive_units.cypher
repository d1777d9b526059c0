// description: archive one batch of Events of one namespace (graphmem.agent.retention): first raise the unit_version of the write locks (ConversationLock, in id order, as a writer takes them) of the conversations of the given events not archived yet -- the retrieval engine's vector-cache token, so every process's cache re-reads the archived flags -- then, for each given event not archived yet that evidences no current state (checked again here: a topic's CURRENT_STATE -[:EVIDENCED_BY]->), set archived_at and replace its ns_token with $archived_token (graphmem.retrieval.text.archived_token: the full-text queries of a recall require the namespace token, so they no longer find it); nothing is deleted and no edge changes; returns the ids archived
// params: namespace, ids, archived_token
// returns: archived
// mode: write
CALL () {
  UNWIND $ids AS uid
  MATCH (u:Event {id: uid})
  USING INDEX u:Event(id)
  WHERE u.namespace = $namespace AND u.archived_at IS NULL
  RETURN collect(DISTINCT u.conversation) AS conversations
}
CALL (conversations) {
  MATCH (c:ConversationLock {namespace: $namespace})
  WHERE c.conversation IN conversations
  WITH c ORDER BY c.id
  SET c.unit_version = coalesce(c.unit_version, toInteger(rand() * 1099511627776)) + 1
  RETURN count(c) AS locks
}
UNWIND $ids AS uid
MATCH (u:Event {id: uid})
USING INDEX u:Event(id)
WHERE u.namespace = $namespace AND u.archived_at IS NULL
  AND NOT EXISTS {
    MATCH (u)<-[:EVIDENCED_BY]-(s:State {namespace: $namespace})
          <-[:CURRENT_STATE]-(t:Topic {namespace: $namespace})
  }
SET u.archived_at = datetime(), u.ns_token = $archived_token
RETURN collect(u.id) AS archived

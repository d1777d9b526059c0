// description: archive one batch of Episodes of one namespace (graphmem.agent.retention): first raise the unit_version of the write locks (Timeline, in id order, as a writer takes them) of the conversations of the given episodes not archived yet -- the retrieval engine's vector-cache token, so every process's cache re-reads the archived flags -- then, for each given episode not archived yet whose turn (conversation and source id) is not the turn of an Event that evidences a current state (checked again here: a topic's CURRENT_STATE -[:EVIDENCED_BY]->), set archived_at and replace its ns_token with $archived_token (graphmem.retrieval.text.archived_token: the full-text queries of a recall require the namespace token, so they no longer find it); nothing is deleted and no edge changes; returns the ids archived
// params: namespace, ids, archived_token
// returns: archived
// mode: write
CALL () {
  UNWIND $ids AS uid
  MATCH (u:Episode {id: uid})
  USING INDEX u:Episode(id)
  WHERE u.namespace = $namespace AND u.archived_at IS NULL
  RETURN collect(DISTINCT u.conversation_id) AS conversations
}
CALL (conversations) {
  MATCH (c:Timeline {namespace: $namespace})
  WHERE c.conversation_id IN conversations
  WITH c ORDER BY c.id
  SET c.unit_version = coalesce(c.unit_version, toInteger(rand() * 1099511627776)) + 1
  RETURN count(c) AS locks
}
CALL (conversations) {
  MATCH (t:Topic {namespace: $namespace})-[:CURRENT_STATE]->(s:State)-[:EVIDENCED_BY]->(v:Event)
  WHERE s.namespace = $namespace AND v.namespace = $namespace
    AND v.conversation IN conversations
  UNWIND v.source_ids AS sid
  RETURN collect(DISTINCT [v.conversation, sid]) AS pinned
}
UNWIND $ids AS uid
MATCH (u:Episode {id: uid})
USING INDEX u:Episode(id)
WHERE u.namespace = $namespace AND u.archived_at IS NULL
  AND NOT [u.conversation_id, u.source_id] IN pinned
SET u.archived_at = datetime(), u.ns_token = $archived_token
RETURN collect(u.id) AS archived

// description: doctor --repair: set the re-embedded vector of nodes of one embedded label in one namespace, by id (one unique-id seek per row: the label needs a uniqueness constraint on id, which every graphmem label has); every vector written gets a new random vector_stamp and, for Event and Episode nodes, the write lock of their conversation (ConversationLock / Timeline) a raised unit_version, so the in-process vector cache of graphmem.retrieval.vectors sees the change
// template: Label = {{EMBEDDED_LABELS}}
// params: namespace, rows
// returns: repaired
// mode: write
UNWIND $rows AS row
MATCH (n:{{Label}} {id: row.id}) USING INDEX n:{{Label}}(id)
WHERE n.namespace = $namespace
SET n.embedding = row.embedding, n.vector_stamp = toInteger(rand() * 1099511627776)
WITH collect(DISTINCT CASE WHEN n:Event THEN n.conversation END) AS events,
     collect(DISTINCT CASE WHEN n:Episode THEN n.conversation_id END) AS episodes,
     count(n) AS repaired
CALL (events, episodes) {
  UNWIND events + episodes AS conversation
  MATCH (c:ConversationLock|Timeline {namespace: $namespace})
  WHERE (c:ConversationLock AND c.conversation = conversation AND conversation IN events)
     OR (c:Timeline AND c.conversation_id = conversation AND conversation IN episodes)
  SET c.unit_version = coalesce(c.unit_version, toInteger(rand() * 1099511627776)) + 1
}
RETURN repaired

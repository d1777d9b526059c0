// description: doctor --repair: set the re-embedded vector of nodes of one label in one namespace, by id (one unique-id seek per row; $label picks the branch and is never spliced into the query); every vector written gets a new random vector_stamp and the write lock of a repaired Event's or Episode's conversation (ConversationLock / Timeline) a raised unit_version, so the in-process vector cache of graphmem.retrieval.vectors sees the change
// params: namespace, label, rows
// returns: repaired
// mode: write
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Query {id: row.id}) USING INDEX n:Query(id) WHERE $label = 'Query' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:Insight {id: row.id}) USING INDEX n:Insight(id) WHERE $label = 'Insight' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:Task {id: row.id}) USING INDEX n:Task(id) WHERE $label = 'Task' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:Topic {id: row.id}) USING INDEX n:Topic(id) WHERE $label = 'Topic' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:Event {id: row.id}) USING INDEX n:Event(id) WHERE $label = 'Event' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:State {id: row.id}) USING INDEX n:State(id) WHERE $label = 'State' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:Episode {id: row.id}) USING INDEX n:Episode(id) WHERE $label = 'Episode' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:SemanticUnit {id: row.id}) USING INDEX n:SemanticUnit(id) WHERE $label = 'SemanticUnit' AND n.namespace = $namespace RETURN n
}
SET n.embedding = row.embedding, n.vector_stamp = toInteger(rand() * 1099511627776)
WITH collect(DISTINCT coalesce(n.conversation, n.conversation_id)) AS conversations, count(n) AS repaired
CALL (conversations) {
  UNWIND conversations AS conversation
  MATCH (c:ConversationLock|Timeline {namespace: $namespace})
  WHERE ($label = 'Event' AND c:ConversationLock AND c.conversation = conversation)
     OR ($label = 'Episode' AND c:Timeline AND c.conversation_id = conversation)
  SET c.unit_version = coalesce(c.unit_version, toInteger(rand() * 1099511627776)) + 1
}
RETURN repaired

// description: doctor --repair: set the re-embedded vector of nodes of one label in one namespace, by id (one unique-id seek per row; $label picks the branch and is never spliced into the query); every vector written gets a new random vector_stamp (the in-process vector cache of graphmem.retrieval.vectors sees the change)
// params: namespace, label, rows
// returns: repaired
// mode: write
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Query {id: row.id}) WHERE $label = 'Query' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:Insight {id: row.id}) WHERE $label = 'Insight' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:Task {id: row.id}) WHERE $label = 'Task' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:Topic {id: row.id}) WHERE $label = 'Topic' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:Event {id: row.id}) WHERE $label = 'Event' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:State {id: row.id}) WHERE $label = 'State' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:Episode {id: row.id}) WHERE $label = 'Episode' AND n.namespace = $namespace RETURN n
  UNION MATCH (n:SemanticUnit {id: row.id}) WHERE $label = 'SemanticUnit' AND n.namespace = $namespace RETURN n
}
SET n.embedding = row.embedding, n.vector_stamp = toInteger(rand() * 1099511627776)
RETURN count(n) AS repaired

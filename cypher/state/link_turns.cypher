// description: session order of a batch: NEXT_TURN edges between consecutive events of a session (older -> newer; a stored pair a new event now sits between is unlinked), and the stored session neighbours refreshed with their new prev_id / next_id and window-text embedding (a topic or state whose vector was that event's vector gets the new one too); every vector written gets a new random vector_stamp (the in-process vector cache of graphmem.retrieval.vectors sees the change)
// params: namespace, unlink, link, refresh
// returns: linked
// mode: write
CALL () {
  UNWIND $unlink AS pair
  MATCH (a:Event {id: pair[0]})-[r:NEXT_TURN]->(b:Event {id: pair[1]})
  USING INDEX a:Event(id)
  WHERE a.namespace = $namespace AND b.namespace = $namespace
  DELETE r
}
CALL () {
  UNWIND $refresh AS row
  MATCH (e:Event {id: row.id})
  USING INDEX e:Event(id)
  WHERE e.namespace = $namespace
  CALL (e, row) {
    MATCH (t:Topic {id: e.topic_id})
    USING INDEX t:Topic(id)
    WHERE t.namespace = $namespace AND t.embedding = e.embedding
    SET t.embedding = row.embedding
  }
  CALL (e, row) {
    MATCH (s:State {id: row.state_id})
    USING INDEX s:State(id)
    WHERE s.namespace = $namespace AND s.embedding = e.embedding
    SET s.embedding = row.embedding
  }
  SET e.prev_id = row.prev_id, e.next_id = row.next_id, e.embedding = row.embedding,
      e.vector_stamp = toInteger(rand() * 1099511627776)
}
CALL () {
  UNWIND $link AS pair
  MATCH (a:Event {id: pair[0]})
  USING INDEX a:Event(id)
  WHERE a.namespace = $namespace
  MATCH (b:Event {id: pair[1]})
  USING INDEX b:Event(id)
  WHERE b.namespace = $namespace
  CREATE (a)-[:NEXT_TURN]->(b)
  RETURN count(*) AS linked
}
RETURN linked

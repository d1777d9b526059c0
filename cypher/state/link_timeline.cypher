// description: thread a batch's new events into their topic chains (computed by graphmem.state.chain.plan_links under the topic locks): stored TEMPORAL_NEXT pairs a new event now sits between are unlinked, FIRST_TIMELINE_NODE moves to a new first event, the new TEMPORAL_NEXT pairs are created
// params: namespace, unlink, link, unfirst, first
// returns: linked
// mode: write
CALL () {
  UNWIND $unlink AS pair
  MATCH (a:Event {id: pair[0]})-[r:TEMPORAL_NEXT]->(b:Event {id: pair[1]})
  USING INDEX a:Event(id)
  WHERE a.namespace = $namespace AND b.namespace = $namespace
  DELETE r
}
CALL () {
  UNWIND $unfirst AS pair
  MATCH (t:Topic {id: pair[0]})-[r:FIRST_TIMELINE_NODE]->(f:Event {id: pair[1]})
  USING INDEX t:Topic(id)
  WHERE t.namespace = $namespace AND f.namespace = $namespace
  DELETE r
}
CALL () {
  UNWIND $first AS pair
  MATCH (t:Topic {id: pair[0]})
  USING INDEX t:Topic(id)
  WHERE t.namespace = $namespace
  MATCH (f:Event {id: pair[1]})
  USING INDEX f:Event(id)
  WHERE f.namespace = $namespace
  CREATE (t)-[:FIRST_TIMELINE_NODE]->(f)
}
CALL () {
  UNWIND $link AS pair
  MATCH (a:Event {id: pair[0]})
  USING INDEX a:Event(id)
  WHERE a.namespace = $namespace
  MATCH (b:Event {id: pair[1]})
  USING INDEX b:Event(id)
  WHERE b.namespace = $namespace
  CREATE (a)-[:TEMPORAL_NEXT]->(b)
  RETURN count(*) AS linked
}
RETURN linked

// description: benchmark: chain integrity of one namespace's state memory after concurrent writes, each 0 when sound: events with more than one TEMPORAL_NEXT successor or predecessor, topics with events but not exactly one FIRST_TIMELINE_NODE, TEMPORAL_NEXT links against event-time order (sort_key), states with more than one SEMANTIC_NEXT successor or predecessor, event pairs related in both directions
// params: namespace
// returns: temporal_forks, bad_first, out_of_order, semantic_forks, related_both_ways
// mode: read
CALL () {
  MATCH (e:Event {namespace: $namespace})
  WITH e, COUNT { (e)-[:TEMPORAL_NEXT]->(:Event {namespace: $namespace}) } AS outs,
       COUNT { (:Event {namespace: $namespace})-[:TEMPORAL_NEXT]->(e) } AS ins
  RETURN sum(CASE WHEN outs > 1 OR ins > 1 THEN 1 ELSE 0 END) AS temporal_forks
}
CALL () {
  MATCH (t:Topic {namespace: $namespace})
  WHERE EXISTS { (t)<-[:SUPPORTED_BY]-(:Event {namespace: $namespace}) }
  WITH t, COUNT { (t)-[:FIRST_TIMELINE_NODE]->(:Event {namespace: $namespace}) } AS firsts
  RETURN sum(CASE WHEN firsts <> 1 THEN 1 ELSE 0 END) AS bad_first
}
CALL () {
  OPTIONAL MATCH (a:Event {namespace: $namespace})-[:TEMPORAL_NEXT]->(b:Event {namespace: $namespace})
  WHERE a.sort_key >= b.sort_key
  RETURN count(b) AS out_of_order
}
CALL () {
  MATCH (s:State {namespace: $namespace})
  WITH s, COUNT { (s)-[:SEMANTIC_NEXT]->(:State {namespace: $namespace}) } AS outs,
       COUNT { (:State {namespace: $namespace})-[:SEMANTIC_NEXT]->(s) } AS ins
  RETURN sum(CASE WHEN outs > 1 OR ins > 1 THEN 1 ELSE 0 END) AS semantic_forks
}
CALL () {
  OPTIONAL MATCH (a:Event {namespace: $namespace})-[:RELATED_EVENT]->(b:Event {namespace: $namespace})
  WHERE EXISTS { (b)-[:RELATED_EVENT]->(a) }
  RETURN count(b) / 2 AS related_both_ways
}
RETURN coalesce(temporal_forks, 0) AS temporal_forks, coalesce(bad_first, 0) AS bad_first,
       out_of_order, coalesce(semantic_forks, 0) AS semantic_forks, related_both_ways

// description: what a retention policy selects among the Events of one namespace (graphmem.agent.retention): candidates, the events not archived yet (archived_at null) that occurred before $cutoff (ISO-8601 text; null: no age rule) or that are not among the $keep_last newest events of their conversation (conversation order: sort_key -- UTC time, arrival position, id -- newest first, archived events counted; null: no count rule), each as [id, selected by the age rule, selected by the count rule]; and pinned, the ids of every Event of the namespace that evidences a current state (a topic's CURRENT_STATE -[:EVIDENCED_BY]->), which retention never archives
// params: namespace, cutoff, keep_last
// returns: label, candidates, pinned
// mode: read
// values: plain
CALL () {
  MATCH (e:Event {namespace: $namespace})
  WITH e ORDER BY e.sort_key DESC, e.id DESC
  WITH e.conversation AS conversation, collect(e) AS events
  UNWIND range(0, size(events) - 1) AS position
  WITH events[position] AS e, position
  WHERE e.archived_at IS NULL
  WITH e, $cutoff IS NOT NULL AND e.occurred_at < datetime($cutoff) AS by_age,
       $keep_last IS NOT NULL AND position >= $keep_last AS by_count
  WHERE by_age OR by_count
  RETURN collect([e.id, by_age, by_count]) AS candidates
}
CALL () {
  MATCH (t:Topic {namespace: $namespace})-[:CURRENT_STATE]->(s:State)-[:EVIDENCED_BY]->(v:Event)
  WHERE s.namespace = $namespace AND v.namespace = $namespace
  RETURN collect(DISTINCT v.id) AS pinned
}
RETURN 'Event' AS label, candidates, pinned

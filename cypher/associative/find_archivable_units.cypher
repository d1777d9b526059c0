// description: what a retention policy selects among the Episodes of one namespace (graphmem.agent.retention): candidates, the episodes not archived yet (archived_at null) that occurred before $cutoff (ISO-8601 text; null: no age rule) or that are not among the $keep_last newest episodes of their conversation (conversation order: time, then arrival position, then id, newest first, archived episodes counted; null: no count rule), each as [id, selected by the age rule, selected by the count rule]; and pinned, the ids of every Episode of the namespace whose turn (conversation and source id) is the turn of an Event that evidences a current state (a topic's CURRENT_STATE -[:EVIDENCED_BY]->), which retention never archives
// params: namespace, cutoff, keep_last
// returns: label, candidates, pinned
// mode: read
// values: plain
CALL () {
  MATCH (e:Episode {namespace: $namespace})
  WITH e ORDER BY e.occurred_at DESC, e.position DESC, e.id DESC
  WITH e.conversation_id AS conversation, collect(e) AS episodes
  UNWIND range(0, size(episodes) - 1) AS position
  WITH episodes[position] AS e, position
  WHERE e.archived_at IS NULL
  WITH e, $cutoff IS NOT NULL AND e.occurred_at < datetime($cutoff) AS by_age,
       $keep_last IS NOT NULL AND position >= $keep_last AS by_count
  WHERE by_age OR by_count
  RETURN collect([e.id, by_age, by_count]) AS candidates
}
CALL () {
  MATCH (t:Topic {namespace: $namespace})-[:CURRENT_STATE]->(s:State)-[:EVIDENCED_BY]->(v:Event)
  WHERE s.namespace = $namespace AND v.namespace = $namespace
  UNWIND v.source_ids AS sid
  MATCH (p:Episode {namespace: $namespace, source_id: sid})
  WHERE p.conversation_id = v.conversation
  RETURN collect(DISTINCT p.id) AS pinned
}
RETURN 'Episode' AS label, candidates, pinned

// description: for each task, the top-t incident SIMILAR_TASK edges (one per neighbour) ranked by the neighbour's similarity to the query (EMG eq. 7); $since / $until (epoch microseconds of UTC instants, or null: open) keep only neighbours recorded in the window (since <= created_at < until), as the recalled tasks
// params: namespace, task_ids, embedding, t, since, until
// returns: task_id, edges
// mode: read
UNWIND $task_ids AS task_id
MATCH (task:Task {id: task_id, namespace: $namespace})-[s:SIMILAR_TASK]-(n:Task)
USING INDEX task:Task(id)
WHERE n.namespace = $namespace
  // skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
  AND size(n.embedding) = size($embedding)
  AND all(x IN n.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN n.embedding WHERE x <> 0.0)
  AND ($since IS NULL OR n.created_at.epochMillis * 1000 + n.created_at.microsecond % 1000 >= $since)
  AND ($until IS NULL OR n.created_at.epochMillis * 1000 + n.created_at.microsecond % 1000 < $until)
WITH task_id, n, s
ORDER BY s.similarity DESC
// an edge may exist in both directions (each task keeps its own top-k): one per neighbour
WITH task_id, n, head(collect(s)) AS s
WITH task_id, s, n, vector.similarity.cosine(n.embedding, $embedding) AS neighbour_score
ORDER BY neighbour_score DESC, n.id
WITH task_id, collect({neighbour_id: n.id, neighbour_key: n.task_key, neighbour_query: n.query,
     neighbour_score: neighbour_score, similarity: s.similarity, insight: s.cross_insight,
     renderer: s.cross_renderer, observations: s.cross_observations, actions: s.cross_actions,
     raw: s.cross_raw}) AS all_edges
RETURN task_id, all_edges[..$t] AS edges

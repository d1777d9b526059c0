// description: top-k Task nodes by cosine to an embedding (EMG eq. 7), by an exact cosine scan of the namespace's own tasks (no vector index: its global top list, filtered afterwards, would make the answer depend on other namespaces' tasks), ties by id; stored vectors cosine cannot score (wrong width, NaN/infinity, all zero) are skipped; score is (1 + cosine) / 2; $since / $until (epoch microseconds of UTC instants, or null: open) keep only tasks recorded in the window (since <= created_at < until), before the top-k cut
// params: namespace, embedding, k, since, until
// returns: id, task_key, query, task_type, reward, intra_insight, intra_renderer, has_exploration, score
// mode: read
MATCH (node:Task {namespace: $namespace})
WHERE size(node.embedding) = size($embedding)
  AND all(x IN node.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN node.embedding WHERE x <> 0.0)
  AND ($since IS NULL OR node.created_at.epochMillis * 1000 + node.created_at.microsecond % 1000 >= $since)
  AND ($until IS NULL OR node.created_at.epochMillis * 1000 + node.created_at.microsecond % 1000 < $until)
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
RETURN node.id AS id, node.task_key AS task_key, node.query AS query, node.task_type AS task_type,
       node.reward AS reward, node.intra_insight AS intra_insight,
       node.intra_renderer AS intra_renderer, node.has_exploration AS has_exploration, score
ORDER BY score DESC, id
LIMIT $k

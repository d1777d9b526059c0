// description: exact in-namespace cosine scan of Task nodes (fallback when the vector index returns too few)
// params: namespace, embedding, k
// returns: id, task_key, query, task_type, reward, intra_insight, intra_renderer, has_exploration, score
// mode: read
MATCH (node:Task {namespace: $namespace})
// skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
WHERE size(node.embedding) = size($embedding)
  AND all(x IN node.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN node.embedding WHERE x <> 0.0)
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
RETURN node.id AS id, node.task_key AS task_key, node.query AS query, node.task_type AS task_type,
       node.reward AS reward, node.intra_insight AS intra_insight,
       node.intra_renderer AS intra_renderer, node.has_exploration AS has_exploration, score
ORDER BY score DESC
LIMIT $k

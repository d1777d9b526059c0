// description: top-k Task nodes by cosine over the task_embedding vector index, in one namespace (EMG eq. 7)
// params: namespace, embedding, oversample, k
// returns: id, task_key, query, task_type, reward, intra_insight, intra_renderer, has_exploration, score
// mode: read
CALL db.index.vector.queryNodes('task_embedding', $oversample, $embedding) YIELD node, score
WITH node, score WHERE node.namespace = $namespace
RETURN node.id AS id, node.task_key AS task_key, node.query AS query, node.task_type AS task_type,
       node.reward AS reward, node.intra_insight AS intra_insight,
       node.intra_renderer AS intra_renderer, node.has_exploration AS has_exploration, score
ORDER BY score DESC
LIMIT $k

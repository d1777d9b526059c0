// description: vector search over topic chain heads (oversampled, namespace-filtered); score is cosine
// params: namespace, embedding, oversample, k
// returns: id, name, score
// mode: read
CALL db.index.vector.queryNodes('topic_embedding', $oversample, $embedding) YIELD node, score
WITH node, score
WHERE node.namespace = $namespace
RETURN node.id AS id, node.name AS name, 2 * score - 1 AS score
ORDER BY score DESC, id
LIMIT $k

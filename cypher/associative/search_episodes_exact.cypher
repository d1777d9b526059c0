// description: exact in-namespace cosine scan of Episodes (fallback when the vector index path of search_episodes returns fewer than k), ties by id
// params: namespace, embedding, k
// returns: id, text, source_ids, conversation_id, occurred_at, score
// mode: read
MATCH (node:Episode {namespace: $namespace})
// skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
WHERE size(node.embedding) = size($embedding)
  AND all(x IN node.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN node.embedding WHERE x <> 0.0)
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
RETURN node.id AS id, node.text AS text, [node.source_id] AS source_ids,
       node.conversation_id AS conversation_id, toString(node.occurred_at) AS occurred_at, score
ORDER BY score DESC, id
LIMIT $k

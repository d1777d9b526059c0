// description: vector search over Episodes (raw turns) in one namespace: the vector-RAG baseline and the reconstruction seeds
// params: namespace, embedding, oversample, k
// returns: id, text, source_ids, conversation_id, occurred_at, score
// mode: read
CALL db.index.vector.queryNodes('episode_embedding', $oversample, $embedding) YIELD node, score
WITH node, score
WHERE node.namespace = $namespace
RETURN node.id AS id, node.text AS text, [node.source_id] AS source_ids,
       node.conversation_id AS conversation_id, toString(node.occurred_at) AS occurred_at, score
ORDER BY score DESC
LIMIT $k

// description: exact in-namespace cosine scan of Episodes (fallback for small tenants)
// params: namespace, embedding, k
// returns: id, text, source_ids, conversation_id, occurred_at, score
// mode: read
MATCH (node:Episode {namespace: $namespace})
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
RETURN node.id AS id, node.text AS text, [node.source_id] AS source_ids,
       node.conversation_id AS conversation_id, toString(node.occurred_at) AS occurred_at, score
ORDER BY score DESC
LIMIT $k

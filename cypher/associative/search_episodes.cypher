// description: vector search over Episodes (raw turns) in one namespace, the vector-RAG baseline: an exact cosine scan of the namespace's own episodes (ties by id) when it holds at most $exact_limit of them, so the answer does not depend on other namespaces' data; above, the vector index queried for $oversample nodes and filtered by namespace (approximate); stored vectors cosine cannot score are skipped on the exact path; score is (1 + cosine) / 2
// params: namespace, embedding, oversample, k, exact_limit
// returns: id, text, source_ids, conversation_id, occurred_at, score
// mode: read
CALL () {
  MATCH (e:Episode {namespace: $namespace})
  RETURN count(e) AS n_episodes
}
CALL (n_episodes) {
  WITH n_episodes WHERE n_episodes > $exact_limit
  CALL db.index.vector.queryNodes('episode_embedding', $oversample, $embedding) YIELD node, score
  WITH node, score WHERE node.namespace = $namespace
  RETURN node, score
UNION
  WITH n_episodes WHERE n_episodes <= $exact_limit
  MATCH (node:Episode {namespace: $namespace})
  WHERE size(node.embedding) = size($embedding)
    AND all(x IN node.embedding WHERE abs(x) <= 1.7976931348623157e308)
    AND any(x IN node.embedding WHERE x <> 0.0)
  RETURN node, vector.similarity.cosine(node.embedding, $embedding) AS score
}
RETURN node.id AS id, node.text AS text, [node.source_id] AS source_ids,
       node.conversation_id AS conversation_id, toString(node.occurred_at) AS occurred_at, score
ORDER BY score DESC, id
LIMIT $k

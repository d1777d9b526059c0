// description: exact in-namespace cosine scan of Cue nodes (fallback when the vector index starves a small tenant)
// params: namespace, embeddings, k
// returns: query, id, text, kind, score, contents
// mode: read
UNWIND range(0, size($embeddings) - 1) AS query
CALL (query) {
  MATCH (node:Cue {namespace: $namespace})
  // skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
  WHERE size(node.embedding) = size($embeddings[query])
    AND all(x IN node.embedding WHERE abs(x) <= 1.7976931348623157e308)
    AND any(x IN node.embedding WHERE x <> 0.0)
  WITH node, vector.similarity.cosine(node.embedding, $embeddings[query]) AS score
  RETURN node, score
  ORDER BY score DESC
  LIMIT $k
}
RETURN query, node.id AS id, node.text AS text, node.kind AS kind, score,
       COUNT { (node)-[:HAS_TAG]->(:Tag {namespace: $namespace})-[:LEADS_TO]->({namespace: $namespace}) } AS contents

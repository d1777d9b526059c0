// description: exact in-namespace cosine scan of Cue nodes (fallback when the vector index starves a small tenant)
// params: namespace, embeddings, k
// returns: query, id, text, kind, score, contents
// mode: read
UNWIND range(0, size($embeddings) - 1) AS query
CALL (query) {
  MATCH (node:Cue {namespace: $namespace})
  WITH node, vector.similarity.cosine(node.embedding, $embeddings[query]) AS score
  RETURN node, score
  ORDER BY score DESC
  LIMIT $k
}
RETURN query, node.id AS id, node.text AS text, node.kind AS kind, score,
       COUNT { (node)-[:HAS_TAG]->(:Tag {namespace: $namespace})-[:LEADS_TO]->({namespace: $namespace}) } AS contents

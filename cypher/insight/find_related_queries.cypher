// description: queries most similar to an embedding above a cosine threshold (for RELATED_QUERY at insert); vector index oversampled, exact in-namespace scan when it returns fewer than $top
// params: namespace, embedding, query_id, oversample, top, threshold
// returns: id, similarity
// mode: read
CALL db.index.vector.queryNodes('query_embedding', $oversample, $embedding) YIELD node, score
WITH node, score
WHERE node.namespace = $namespace AND node.id <> $query_id
WITH node, 2 * score - 1 AS similarity ORDER BY similarity DESC, node.id LIMIT $top
WITH collect({id: node.id, similarity: similarity}) AS indexed
CALL (indexed) {
  MATCH (q:Query {namespace: $namespace})
  WHERE size(indexed) < $top AND q.id <> $query_id AND q.embedding IS NOT NULL
  WITH q, 2 * vector.similarity.cosine(q.embedding, $embedding) - 1 AS similarity
  ORDER BY similarity DESC, q.id LIMIT $top
  RETURN collect({id: q.id, similarity: similarity}) AS scanned
}
UNWIND CASE WHEN size(indexed) < $top THEN scanned ELSE indexed END AS hit
WITH hit WHERE hit.similarity >= $threshold
RETURN hit.id AS id, hit.similarity AS similarity
ORDER BY similarity DESC, id

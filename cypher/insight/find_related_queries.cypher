// description: queries most similar to an embedding above a cosine threshold (for RELATED_QUERY at insert); vector index oversampled, exact in-namespace scan when it returns fewer than $top; when $query_id is already stored, only queries created before it count, so re-ingesting the same input finds the same neighbours (idempotent)
// params: namespace, embedding, query_id, oversample, top, threshold
// returns: id, similarity
// mode: read
OPTIONAL MATCH (self:Query {id: $query_id, namespace: $namespace})
USING INDEX self:Query(id)
WITH self.created_at AS stored_at
CALL db.index.vector.queryNodes('query_embedding', $oversample, $embedding) YIELD node, score
WITH node, score, stored_at
WHERE node.namespace = $namespace AND node.id <> $query_id
  AND (stored_at IS NULL OR node.created_at < stored_at)
WITH node, 2 * score - 1 AS similarity ORDER BY similarity DESC, node.id LIMIT $top
WITH collect({id: node.id, similarity: similarity}) AS indexed
CALL (indexed) {
  OPTIONAL MATCH (self:Query {id: $query_id, namespace: $namespace})
  USING INDEX self:Query(id)
  WITH self.created_at AS stored_at
  MATCH (q:Query {namespace: $namespace})
  WHERE size(indexed) < $top AND q.id <> $query_id
    // skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
    AND size(q.embedding) = size($embedding)
    AND all(x IN q.embedding WHERE abs(x) <= 1.7976931348623157e308)
    AND any(x IN q.embedding WHERE x <> 0.0)
    AND (stored_at IS NULL OR q.created_at < stored_at)
  WITH q, 2 * vector.similarity.cosine(q.embedding, $embedding) - 1 AS similarity
  ORDER BY similarity DESC, q.id LIMIT $top
  RETURN collect({id: q.id, similarity: similarity}) AS scanned
}
UNWIND CASE WHEN size(indexed) < $top THEN scanned ELSE indexed END AS hit
WITH hit WHERE hit.similarity >= $threshold
RETURN hit.id AS id, hit.similarity AS similarity
ORDER BY similarity DESC, id

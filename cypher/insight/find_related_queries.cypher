// description: queries most similar to an embedding above a cosine threshold (for RELATED_QUERY at insert), by an exact cosine scan of the namespace's own queries (no vector index: its global top list, filtered afterwards, would make the edges written depend on other namespaces' queries); ties by id; when $query_id is already stored, only queries created before it count, so re-ingesting the same input finds the same neighbours (idempotent); stored vectors cosine cannot score (wrong width, NaN/infinity, all zero) are skipped
// params: namespace, embedding, query_id, top, threshold
// returns: id, similarity
// mode: read
OPTIONAL MATCH (self:Query {id: $query_id, namespace: $namespace})
USING INDEX self:Query(id)
WITH self.created_at AS stored_at
MATCH (q:Query {namespace: $namespace})
WHERE q.id <> $query_id
  AND size(q.embedding) = size($embedding)
  AND all(x IN q.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN q.embedding WHERE x <> 0.0)
  AND (stored_at IS NULL OR q.created_at < stored_at)
WITH q, 2 * vector.similarity.cosine(q.embedding, $embedding) - 1 AS similarity
WHERE similarity >= $threshold
RETURN q.id AS id, similarity
ORDER BY similarity DESC, id
LIMIT $top

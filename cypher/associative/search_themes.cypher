// description: themes closest to the question (exact in-namespace cosine; themes are few per tenant)
// params: namespace, embedding, k
// returns: id, name, score
// mode: read
MATCH (t:Theme {namespace: $namespace})
// skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
WHERE size(t.embedding) = size($embedding)
  AND all(x IN t.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN t.embedding WHERE x <> 0.0)
WITH t, vector.similarity.cosine(t.embedding, $embedding) AS score
RETURN t.id AS id, t.name AS name, score
ORDER BY score DESC
LIMIT $k

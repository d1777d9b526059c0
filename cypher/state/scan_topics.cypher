// description: exact in-namespace cosine scan over topics (fallback for small tenants)
// params: namespace, embedding, k
// returns: id, name, score
// mode: read
MATCH (t:Topic {namespace: $namespace})
WITH t, 2 * vector.similarity.cosine(t.embedding, $embedding) - 1 AS score
RETURN t.id AS id, t.name AS name, score
ORDER BY score DESC, id
LIMIT $k

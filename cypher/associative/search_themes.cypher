// description: themes closest to the question (exact in-namespace cosine; themes are few per tenant)
// params: namespace, embedding, k
// returns: id, name, score
// mode: read
MATCH (t:Theme {namespace: $namespace})
WITH t, vector.similarity.cosine(t.embedding, $embedding) AS score
RETURN t.id AS id, t.name AS name, score
ORDER BY score DESC
LIMIT $k

// description: test-only toy memory: the k notes of one namespace, those containing $text first
// params: namespace, text, k
// returns: id, text, score
// mode: read
MATCH (n:Note {namespace: $namespace})
WITH n, CASE WHEN toLower(n.text) CONTAINS toLower($text) THEN 1.0 ELSE 0.5 END AS score
RETURN n.id AS id, n.text AS text, score
ORDER BY score DESC, n.id
LIMIT $k

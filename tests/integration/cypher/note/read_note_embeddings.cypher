// description: test-only toy memory: id, text and stored embedding of every note of one namespace, in id order
// params: namespace
// returns: id, text, embedding
// mode: read
MATCH (n:Note {namespace: $namespace})
RETURN n.id AS id, n.text AS text, n.embedding AS embedding
ORDER BY id

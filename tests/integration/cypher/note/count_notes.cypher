// description: test-only toy memory: Note nodes of one namespace
// params: namespace
// returns: nodes
// mode: read
MATCH (n:Note {namespace: $namespace})
RETURN count(n) AS nodes

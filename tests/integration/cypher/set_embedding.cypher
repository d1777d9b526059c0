// description: test-only: overwrite the stored embedding of one node of one namespace (a legacy row written before vectors were validated: wrong width, NaN, infinity, zero)
// params: namespace, id, embedding
// returns: changed
// mode: write
MATCH (n {id: $id})
WHERE n.namespace = $namespace
SET n.embedding = $embedding
RETURN count(n) AS changed

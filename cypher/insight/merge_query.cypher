// description: MERGE a query node q = (Q, Ψ) of the query graph (eq. 1); status and embedding are the latest
// params: namespace, query_id, text, status, embedding
// returns: id
// mode: write
MERGE (q:Query {id: $query_id, namespace: $namespace})
ON CREATE SET q.created_at = datetime()
SET q.text = $text, q.status = $status, q.embedding = $embedding
RETURN q.id AS id

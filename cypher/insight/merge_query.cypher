// description: MERGE a query node q = (Q, Ψ) of the query graph (eq. 1); status and embedding are the latest
// params: namespace, query_id, text, status, embedding
// returns: id, created
// mode: write
MERGE (q:Query {id: $query_id, namespace: $namespace})
ON CREATE SET q.created_at = datetime(), q._new = true
SET q.text = $text, q.status = $status, q.embedding = $embedding
WITH q, coalesce(q._new, false) AS created
REMOVE q._new
RETURN q.id AS id, created

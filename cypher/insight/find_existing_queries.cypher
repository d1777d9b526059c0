// description: the subset of the given Query ids already stored in the namespace (ingest skips their records)
// params: namespace, ids
// returns: id
// mode: read
MATCH (q:Query)
USING INDEX q:Query(id)
WHERE q.id IN $ids AND q.namespace = $namespace
RETURN q.id AS id

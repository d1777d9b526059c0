// description: the subset of the given Episode ids already stored in the namespace (re-ingest skips them)
// params: namespace, ids
// returns: id
// mode: read
MATCH (e:Episode)
USING INDEX e:Episode(id)
WHERE e.id IN $ids AND e.namespace = $namespace
RETURN e.id AS id

// description: which of the given event ids already exist in the namespace (re-ingest skips them)
// params: namespace, ids
// returns: id
// mode: read
UNWIND $ids AS eid
MATCH (e:Event {id: eid})
USING INDEX e:Event(id)
WHERE e.namespace = $namespace
RETURN e.id AS id

// description: the stored vectors of the given units of one namespace (index seek on id), for the in-process vector cache
// params: namespace, ids
// returns: id, stamp, embedding
// mode: read
// values: plain
// template: Unit = Event | Episode
UNWIND $ids AS uid
MATCH (u:{{Unit}} {id: uid})
WHERE u.namespace = $namespace
RETURN u.id AS id, coalesce(u.vector_stamp, 0) AS stamp, u.embedding AS embedding

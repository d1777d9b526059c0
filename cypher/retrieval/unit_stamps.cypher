// description: the vector_stamp of every unit of one namespace (the in-process vector cache compares them with its own to fetch only new or re-written vectors), or nothing when the namespace has more than $limit units (it is not cached)
// params: namespace, limit
// returns: id, stamp
// mode: read
// values: plain
// template: Unit = Event | Episode
CALL () {
  MATCH (u:{{Unit}} {namespace: $namespace})
  RETURN count(u) AS n
}
WITH n WHERE n <= $limit
MATCH (u:{{Unit}} {namespace: $namespace})
RETURN u.id AS id, coalesce(u.vector_stamp, 0) AS stamp

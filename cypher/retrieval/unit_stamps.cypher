// description: the vector_stamp of every unit of one namespace that has one (every unit graphmem writes; V0100 stamped older ones) (the in-process vector cache compares them with its own to fetch only new or re-written vectors), or nothing when the namespace has more than $limit units (it is not cached)
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
MATCH (u:{{Unit}})
WHERE u.namespace = $namespace AND u.vector_stamp IS NOT NULL
RETURN u.id AS id, u.vector_stamp AS stamp

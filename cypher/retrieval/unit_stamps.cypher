// description: the vector_stamp and the time (occurred_at as epoch microseconds of its UTC instant, null when unset: what a recall's since / until window compares) and whether it is archived (archived_at set by retention: a recall leaves it out unless asked for archived units) of every unit of one namespace that has a stamp (every unit graphmem writes; V0100 stamped older ones) and, in the same transaction, the namespace's unit version (n_locks, unit_version: as the round query reads it), so the in-process vector cache keeps the version its stamps were read at and fetches only new or re-written vectors; no stamps when the namespace has more than $limit units (it is not cached)
// params: namespace, limit
// returns: n_locks, unit_version, n_units, stamps
// mode: read
// values: plain
// template: Unit = Event | Episode; Lock = ConversationLock | Timeline
CALL () {
  MATCH (c:{{Lock}} {namespace: $namespace})
  RETURN count(c) AS n_locks, sum(coalesce(c.unit_version, 0)) AS unit_version
}
CALL () {
  MATCH (u:{{Unit}} {namespace: $namespace})
  RETURN count(u) AS n_units
}
CALL (n_units) {
  MATCH (u:{{Unit}})
  WHERE n_units <= $limit AND u.namespace = $namespace AND u.vector_stamp IS NOT NULL
  RETURN collect([u.id, u.vector_stamp,
                  u.occurred_at.epochMillis * 1000 + u.occurred_at.microsecond % 1000,
                  u.archived_at IS NOT NULL]) AS stamps
}
RETURN n_locks, unit_version, n_units, stamps

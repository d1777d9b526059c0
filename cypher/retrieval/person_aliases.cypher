// description: the person aliases of one namespace for the retrieval engine's entity step and question expansion (graphmem.retrieval.aliases): per Person node its speaker labels (empty for a third party) and lower-cased aliases, and, in the same transaction, the namespace's unit version (n_locks, unit_version of the write locks, as the round query reads it: writing people raises it, state/lock_people), under which the engine caches the answer
// params: namespace
// returns: n_locks, unit_version, people
// mode: read
// values: plain
// template: Unit = Event | Episode; Lock = ConversationLock | Timeline
CALL () {
  MATCH (c:{{Lock}} {namespace: $namespace})
  RETURN count(c) AS n_locks, sum(coalesce(c.unit_version, 0)) AS unit_version
}
CALL () {
  MATCH (p:Person {namespace: $namespace})
  WHERE p.conversation_id IS NOT NULL
  RETURN collect([p.speakers, p.aliases]) AS people
}
RETURN n_locks, unit_version, people

// description: evaluation baseline: block until the vector index graphmem_baseline is online (at most $seconds)
// params: seconds
// returns: none
// mode: read
CALL db.awaitIndex('graphmem_baseline', $seconds)

// description: evaluation baseline: delete at most $batch GraphmemBaseline nodes of one run's namespace; run until it deletes 0
// params: namespace, batch
// returns: deleted
// mode: write
MATCH (n:GraphmemBaseline {namespace: $namespace})
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted

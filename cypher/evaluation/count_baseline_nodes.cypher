// description: evaluation baseline: GraphmemBaseline nodes (raw turns) of one run's namespace
// params: namespace
// returns: nodes
// mode: read
MATCH (n:GraphmemBaseline {namespace: $namespace})
RETURN count(n) AS nodes

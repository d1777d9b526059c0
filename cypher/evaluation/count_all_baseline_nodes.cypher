// description: evaluation baseline: GraphmemBaseline nodes of every run (0 means the shared indexes can go)
// params: none
// returns: nodes
// mode: read
MATCH (n:GraphmemBaseline)
RETURN count(n) AS nodes

// description: delete every node (and its relationships) of one namespace; admin, namespace-wide
// labels: {{MEMORY_LABELS}} = the labels of every registered memory (graphmem.memory.all_labels()), substituted by CypherRegistry.get
// params: namespace
// returns: deleted
// mode: write
MATCH (n:{{MEMORY_LABELS}})
WHERE n.namespace = $namespace
DETACH DELETE n
RETURN count(*) AS deleted

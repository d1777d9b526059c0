// description: node count per label in one namespace
// labels: {{MEMORY_LABELS}} = the labels of every registered memory (graphmem.memory.all_labels()), substituted by CypherRegistry.get
// params: namespace
// returns: label, nodes
// mode: read
MATCH (n:{{MEMORY_LABELS}})
WHERE n.namespace = $namespace
UNWIND labels(n) AS label
RETURN label, count(*) AS nodes
ORDER BY label

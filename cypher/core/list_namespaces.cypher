// description: every namespace that holds memory, with its node count per label (database-wide, admin; the planner answers it with one namespace-index scan per label)
// labels: {{MEMORY_LABELS}} = the labels of every registered memory (graphmem.memory.all_labels()), substituted by CypherRegistry.get
// params: none
// returns: namespace, label, nodes
// mode: read
MATCH (n:{{MEMORY_LABELS}})
WHERE n.namespace IS NOT NULL
UNWIND labels(n) AS label
RETURN n.namespace AS namespace, label, count(*) AS nodes
ORDER BY namespace, label

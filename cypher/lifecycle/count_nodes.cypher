// description: node count per label of one namespace, the memories' labels and the bookkeeping ones (graphmem.schema.BOOKKEEPING_LABELS): the size of a namespace export, and whether a namespace an import targets is empty (graphmem.lifecycle)
// labels: {{MEMORY_LABELS}} = the labels of every registered memory (graphmem.memory.all_labels()), substituted by CypherRegistry.get
// params: namespace
// returns: label, nodes
// mode: read
MATCH (n:{{MEMORY_LABELS}}|AuditRecord|RetentionPolicy)
WHERE n.namespace = $namespace
UNWIND labels(n) AS label
RETURN label, count(*) AS nodes
ORDER BY label

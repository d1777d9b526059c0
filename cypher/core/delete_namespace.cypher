// description: delete every node (and its relationships) of one namespace; admin, namespace-wide
// labels: {{MEMORY_LABELS}} = the labels of every registered memory (graphmem.memory.all_labels()), substituted by CypherRegistry.get, and the namespaced bookkeeping labels (graphmem.schema.BOOKKEEPING_LABELS: AuditRecord, RetentionPolicy)
// params: namespace
// returns: deleted
// mode: write
MATCH (n:{{MEMORY_LABELS}}|AuditRecord|RetentionPolicy)
WHERE n.namespace = $namespace
DETACH DELETE n
RETURN count(*) AS deleted

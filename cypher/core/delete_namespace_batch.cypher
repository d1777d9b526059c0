// description: delete at most $batch nodes (and their relationships) of one namespace; admin, namespace-wide; run until it deletes 0
// labels: {{MEMORY_LABELS}} = the labels of every registered memory (graphmem.memory.all_labels()), substituted by CypherRegistry.get, and the namespaced bookkeeping labels (graphmem.schema.BOOKKEEPING_LABELS: AuditRecord, RetentionPolicy)
// params: namespace, batch
// returns: deleted
// mode: write
MATCH (n:{{MEMORY_LABELS}}|AuditRecord|RetentionPolicy)
WHERE n.namespace = $namespace
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted

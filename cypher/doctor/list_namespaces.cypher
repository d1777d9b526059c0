// description: doctor: every namespace holding an embedded node (database-wide, admin; the planner answers it with one namespace-index scan per label)
// labels: {{EMBEDDED_LABELS}} = the labels whose nodes carry an embedding (graphmem.memory_registry.embedded_labels(), MemorySpec.embedded_labels), substituted by CypherRegistry.get
// params: none
// returns: namespace
// mode: read
MATCH (n:{{EMBEDDED_LABELS}})
WHERE n.namespace IS NOT NULL
RETURN DISTINCT n.namespace AS namespace
ORDER BY namespace

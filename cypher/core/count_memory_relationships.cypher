// description: relationships by type whose start node carries one of the given labels (one memory's) and whose both ends are in one namespace; each relationship counted once, by its start node (Memory.relationship_counts)
// labels: {{MEMORY_LABELS}} = the labels of every registered memory (graphmem.memory.all_labels()), substituted by CypherRegistry.get
// params: namespace, labels
// returns: type, relationships
// mode: read
MATCH (a:{{MEMORY_LABELS}})
WHERE a.namespace = $namespace AND any(label IN labels(a) WHERE label IN $labels)
CALL (a) {
  // expanded from each namespace node (a subquery per row): never a scan of all relationships
  MATCH (a)-[r]->(b)
  WHERE b.namespace = $namespace
  RETURN type(r) AS type
}
RETURN type, count(*) AS relationships
ORDER BY type

// description: record how far an import has come on its marker (AuditRecord counts, JSON: lines committed, complete, and at the end the nodes and relationships written); runs in the transaction of the batch it counts, so the count and the batch commit together (graphmem.lifecycle.import_)
// params: namespace, id, counts
// returns: id
// mode: write
MATCH (a:AuditRecord {id: $id})
WHERE a.namespace = $namespace
SET a.counts = $counts
RETURN a.id AS id

// description: the import marker of one export in a namespace (the AuditRecord with action "import" whose id derives from the export's id): its counts (JSON: lines committed, complete) and selectors (JSON: the export it imports), or nulls when there is none (graphmem.lifecycle.import_)
// params: namespace, id
// returns: id, action, counts, selectors
// mode: read
OPTIONAL MATCH (a:AuditRecord {id: $id})
WHERE a.namespace = $namespace
RETURN a.id AS id, a.action AS action, a.counts AS counts, a.selectors AS selectors

// description: write one AuditRecord of a lifecycle operation (graphmem.schema.audit: action, actor, salted selector digests and counts as JSON text, no content); returns its id
// params: namespace, id, action, actor, selectors, counts
// returns: id
// mode: write
CREATE (a:AuditRecord {id: $id})
SET a.namespace = $namespace, a.action = $action, a.actor = $actor,
    a.selectors = $selectors, a.counts = $counts, a.created_at = datetime()
RETURN a.id AS id

// description: the audit records of one namespace, newest first, at most $limit
// params: namespace, limit
// returns: id, action, actor, selectors, counts, created_at
// mode: read
MATCH (a:AuditRecord)
WHERE a.namespace = $namespace
RETURN a.id AS id, a.action AS action, a.actor AS actor, a.selectors AS selectors,
       a.counts AS counts, a.created_at AS created_at
ORDER BY a.created_at DESC
LIMIT $limit

// description: delete at most $batch AuditRecords of one namespace (namespace deletion; run until it deletes 0)
// params: namespace, batch
// returns: deleted
// mode: write
MATCH (a:AuditRecord)
WHERE a.namespace = $namespace
WITH a LIMIT $batch
DETACH DELETE a
RETURN count(*) AS deleted

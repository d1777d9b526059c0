// description: delete the retention policy of one namespace (graphmem.schema.retention.RetentionPolicy: clearing the policy, and namespace deletion after the memories' nodes and the audit records); returns how many nodes went (0 or 1)
// params: namespace
// returns: deleted
// mode: write
MATCH (p:RetentionPolicy)
WHERE p.namespace = $namespace
DETACH DELETE p
RETURN count(*) AS deleted

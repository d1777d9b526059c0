// description: store the retention policy of one namespace (graphmem.schema.retention.RetentionPolicy, one node per namespace, $id derived from the namespace; graphmem.agent.retention): max_age_days and keep_last, a null one meaning no such rule; created_at kept from the first write, updated_at set; returns the stored policy
// params: namespace, id, max_age_days, keep_last
// returns: max_age_days, keep_last, updated_at
// mode: write
MERGE (p:RetentionPolicy {id: $id})
ON CREATE SET p.namespace = $namespace, p.created_at = datetime()
WITH p WHERE p.namespace = $namespace
SET p.max_age_days = $max_age_days, p.keep_last = $keep_last, p.updated_at = datetime()
RETURN p.max_age_days AS max_age_days, p.keep_last AS keep_last, p.updated_at AS updated_at

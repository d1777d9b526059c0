// description: the retention policy of one namespace (graphmem.schema.retention.RetentionPolicy; graphmem.agent.retention): max_age_days, keep_last (null: no such rule) and when it was set; no row when the namespace has none
// params: namespace
// returns: max_age_days, keep_last, updated_at
// mode: read
MATCH (p:RetentionPolicy)
WHERE p.namespace = $namespace
RETURN p.max_age_days AS max_age_days, p.keep_last AS keep_last, p.updated_at AS updated_at
ORDER BY p.updated_at DESC
LIMIT 1

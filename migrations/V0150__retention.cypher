// V0150 retention (graphmem.agent.retention): one RetentionPolicy node per namespace
// (graphmem.schema.retention), unique by id, read and deleted by namespace
// (core/get_retention_policy, core/delete_retention_policy). Archived units (archived_at set,
// ns_token replaced by the namespace's archived token) need no index: the round query filters
// them while it reads the units it already reads, and the full-text index leaves them out by
// their token.
CREATE CONSTRAINT retention_policy_id IF NOT EXISTS FOR (n:RetentionPolicy) REQUIRE n.id IS UNIQUE;
CREATE INDEX retention_policy_namespace IF NOT EXISTS FOR (n:RetentionPolicy) ON (n.namespace);

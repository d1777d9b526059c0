// V0140 lifecycle audit trail: one AuditRecord node per lifecycle operation (forget, retain,
// import; graphmem.schema.audit), unique by id; a namespace's records are read and deleted by
// namespace (core/list_audit_records, core/delete_namespace), newest first.
CREATE CONSTRAINT audit_record_id IF NOT EXISTS FOR (n:AuditRecord) REQUIRE n.id IS UNIQUE;
CREATE INDEX audit_record_namespace IF NOT EXISTS FOR (n:AuditRecord) ON (n.namespace);

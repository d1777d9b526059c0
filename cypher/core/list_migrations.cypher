// description: applied migrations in version order
// params: none
// returns: version, name, checksum, applied_at
// mode: read
MATCH (m:__GraphmemMigration)
RETURN m.version AS version, m.name AS name, m.checksum AS checksum,
       toString(m.applied_at) AS applied_at
ORDER BY m.version

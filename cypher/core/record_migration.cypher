// description: record one applied migration
// params: version, name, checksum
// returns: version
// mode: write
MERGE (m:__GraphmemMigration {version: $version})
ON CREATE SET m.name = $name, m.checksum = $checksum, m.applied_at = datetime()
RETURN m.version AS version

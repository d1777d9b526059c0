// description: record one applied migration, with the names of indexes adopted for it (equivalent indexes another name held, dropped and recreated under graphmem's name)
// params: version, name, checksum, adopted
// returns: version
// mode: write
MERGE (m:__GraphmemMigration {version: $version})
ON CREATE SET m.name = $name, m.checksum = $checksum, m.applied_at = datetime(),
              m.adopted_indexes = $adopted
RETURN m.version AS version

// description: test-only: remove the record of a test migration version (>= 9000)
// params: version
// returns: removed
// mode: write
OPTIONAL MATCH (m:__GraphmemMigration {version: $version})
WHERE $version >= 9000
DETACH DELETE m
RETURN m IS NOT NULL AS removed

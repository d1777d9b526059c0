// description: uniqueness of migration versions (bootstrap, idempotent)
// params: none
// returns: none
// mode: write
CREATE CONSTRAINT graphmem_migration_version IF NOT EXISTS
FOR (m:__GraphmemMigration) REQUIRE m.version IS UNIQUE

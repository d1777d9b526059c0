// description: test-only: resample outdated index statistics so new plans see the seeded data
// params: none
// returns: none
// mode: write
CALL db.resampleOutdatedIndexes()

// description: uniqueness of lock names (bootstrap, idempotent)
// params: none
// returns: none
// mode: write
CREATE CONSTRAINT graphmem_lock_name IF NOT EXISTS
FOR (l:__GraphmemLock) REQUIRE l.name IS UNIQUE

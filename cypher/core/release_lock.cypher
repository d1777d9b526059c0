// description: release the named lock if this owner holds it
// params: name, owner
// returns: released
// mode: write
OPTIONAL MATCH (l:__GraphmemLock {name: $name, owner: $owner})
DETACH DELETE l
RETURN l IS NOT NULL AS released

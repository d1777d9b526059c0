// description: take the named lock if free or expired; returns whether this owner holds it
// params: name, owner, ttl_seconds
// returns: acquired, holder
// mode: write
MERGE (l:__GraphmemLock {name: $name})
ON CREATE SET l.owner = $owner, l.acquired_at = datetime()
WITH l
CALL {
  WITH l
  WITH l WHERE l.owner <> $owner
    AND l.acquired_at < datetime() - duration({seconds: $ttl_seconds})
  SET l.owner = $owner, l.acquired_at = datetime()
}
RETURN l.owner = $owner AS acquired, l.owner AS holder

// description: test-only: relationships with exactly one end in one namespace (the other end in another namespace or in none), by type
// params: namespace
// returns: type, relationships
// mode: read
MATCH (a)-[r]-(b)
WHERE a.namespace = $namespace AND (b.namespace IS NULL OR b.namespace <> $namespace)
RETURN type(r) AS type, count(r) AS relationships
ORDER BY type

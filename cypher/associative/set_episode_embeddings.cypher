// description: SET the window embedding of Episodes of the namespace (new episodes, and the refreshed last episode of a session an incremental add extends)
// params: namespace, rows
// returns: updated
// mode: write
UNWIND $rows AS row
MATCH (e:Episode {id: row.id})
WHERE e.namespace = $namespace
SET e.embedding = row.embedding
RETURN count(e) AS updated

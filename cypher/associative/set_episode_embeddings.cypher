// description: SET the window embedding of Episodes of the namespace (new episodes, and the refreshed last episode of a session an incremental add extends); every vector written gets a new random vector_stamp (the in-process vector cache of graphmem.retrieval.vectors sees the change)
// params: namespace, rows
// returns: updated
// mode: write
UNWIND $rows AS row
MATCH (e:Episode {id: row.id})
USING INDEX e:Episode(id)
WHERE e.namespace = $namespace
SET e.embedding = row.embedding, e.vector_stamp = toInteger(rand() * 1099511627776)
RETURN count(e) AS updated

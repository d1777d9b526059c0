// description: SET the window embedding of Episodes of the namespace (new episodes, and the refreshed last episode of a session an incremental add extends); a new episode (row.new) also gets its passages -- passage_spans, the flat [start, end) character spans of a long message's passages, and passage_embeddings, their vectors concatenated (passages x d floats); both null, no property, for a short message (graphmem.retrieval.passages) -- while a refreshed one keeps its stored passages (they depend on its own text only); every vector written gets a new random vector_stamp (the in-process vector cache of graphmem.retrieval.vectors sees the change)
// params: namespace, rows
// returns: updated
// mode: write
UNWIND $rows AS row
MATCH (e:Episode {id: row.id})
USING INDEX e:Episode(id)
WHERE e.namespace = $namespace
SET e.embedding = row.embedding, e.vector_stamp = toInteger(rand() * 1099511627776)
FOREACH (_ IN CASE WHEN row.new THEN [1] ELSE [] END |
  SET e.passage_spans = row.passage_spans, e.passage_embeddings = row.passage_embeddings)
RETURN count(e) AS updated

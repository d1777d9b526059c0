// description: evaluation baseline: the index on GraphmemBaseline.id (Neo4jVector MERGEs on id; the library creates none); fixed name, shared by runs, which are scoped by namespace
// params: none
// returns: none
// mode: write
CREATE INDEX graphmem_baseline_id IF NOT EXISTS FOR (n:GraphmemBaseline) ON (n.id)

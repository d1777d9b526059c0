// description: evaluation baseline: drop the Neo4jVector index graphmem_baseline (only once no baseline node is left)
// params: none
// returns: none
// mode: write
DROP INDEX graphmem_baseline IF EXISTS

// description: evaluation baseline: drop the GraphmemBaseline.id index (only once no baseline node is left)
// params: none
// returns: none
// mode: write
DROP INDEX graphmem_baseline_id IF EXISTS

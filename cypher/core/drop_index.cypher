// description: drop one index by name (migrate adopting an equivalent index that another name holds, so graphmem's can be created under the name its queries use)
// params: name
// returns: none
// mode: write
DROP INDEX $name IF EXISTS

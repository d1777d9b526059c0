// description: point the stored last Episode of a session at the first episode an incremental add appends (next_id; NEXT_TURN comes from merge_episodes)
// params: namespace, rows
// returns: updated
// mode: write
UNWIND $rows AS row
MATCH (e:Episode {id: row.id})
WHERE e.namespace = $namespace
SET e.next_id = row.next_id
RETURN count(e) AS updated

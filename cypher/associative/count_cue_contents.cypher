// description: add the episodes a batch links to each cue to the cue's contents counter (n_c of the cue's specificity; one statement, so concurrent writers lose no count)
// params: namespace, rows
// returns: updated
// mode: write
UNWIND $rows AS row
MATCH (c:Cue {id: row.cue_id})
USING INDEX c:Cue(id)
WHERE c.namespace = $namespace
SET c.contents = coalesce(c.contents, 0) + row.added
RETURN count(c) AS updated

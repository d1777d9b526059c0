// description: ARCHIVE: set z = 0 (active = false) on insights; node, evidence and history stay (never deleted)
// params: namespace, insight_ids
// returns: id
// mode: write
UNWIND $insight_ids AS insight_id
MATCH (i:Insight {id: insight_id, namespace: $namespace})
USING INDEX i:Insight(id)
SET i.active = false, i.archived_at = coalesce(i.archived_at, datetime())
RETURN i.id AS id

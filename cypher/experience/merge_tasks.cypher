// description: upsert Task nodes (EMG eq. 1: query, embedding, reward, intra-task insight) in one batch
// params: namespace, rows
// returns: count, created
// mode: write
UNWIND $rows AS row
MERGE (t:Task {id: row.id})
ON CREATE SET t.namespace = $namespace, t.created_at = datetime(), t._new = true
SET t.task_key = row.task_key, t.query = row.query, t.embedding = row.embedding,
    t.reward = row.reward, t.task_type = row.task_type, t.source = row.source,
    t.has_exploration = row.has_exploration, t.intra_insight = row.intra_insight,
    t.intra_renderer = row.intra_renderer, t.edit_path_length = row.edit_path_length,
    t.fgw_distance = row.fgw_distance
WITH t, coalesce(t._new, false) AS made
REMOVE t._new
RETURN count(t) AS count, sum(CASE WHEN made THEN 1 ELSE 0 END) AS created

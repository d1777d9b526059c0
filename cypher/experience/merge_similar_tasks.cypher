// description: upsert SIMILAR_TASK edges (EMG eq. 2: similarity, cross-task insight and its shared decisions)
// params: namespace, rows
// returns: count
// mode: write
UNWIND $rows AS row
MATCH (a:Task {id: row.source, namespace: $namespace})
USING INDEX a:Task(id)
MATCH (b:Task {id: row.target, namespace: $namespace})
USING INDEX b:Task(id)
MERGE (a)-[s:SIMILAR_TASK]->(b)
SET s.similarity = row.similarity, s.cross_insight = row.cross_insight,
    s.cross_renderer = row.cross_renderer, s.cross_observations = row.cross_observations,
    s.cross_actions = row.cross_actions, s.cross_raw = row.cross_raw
RETURN count(s) AS count

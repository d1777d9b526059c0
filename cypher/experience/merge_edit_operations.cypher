// description: upsert EditOperation nodes of a task's graph edit path (Algorithm 3), linked to the actions they edit
// params: namespace, rows
// returns: count, created
// mode: write
UNWIND $rows AS row
MATCH (t:Task {id: row.task_id, namespace: $namespace})
USING INDEX t:Task(id)
MERGE (e:EditOperation {id: row.id})
ON CREATE SET e.namespace = $namespace, e.created_at = datetime(), e._new = true
SET e.operation = row.operation, e.position = row.position, e.observation = row.observation,
    e.action_key = row.action_key, e.action_raw = row.action_raw,
    e.target_observation = row.target_observation, e.target_key = row.target_key,
    e.target_raw = row.target_raw
MERGE (t)-[:HAS_EDIT]->(e)
WITH e, row, coalesce(e._new, false) AS made
REMOVE e._new
WITH e, row, made
OPTIONAL MATCH (a:Action {id: row.source_action_id, namespace: $namespace})
USING INDEX a:Action(id)
OPTIONAL MATCH (b:Action {id: row.target_action_id, namespace: $namespace})
USING INDEX b:Action(id)
FOREACH (_ IN CASE WHEN a IS NULL THEN [] ELSE [1] END | MERGE (e)-[:EDITS]->(a))
FOREACH (_ IN CASE WHEN b IS NULL THEN [] ELSE [1] END | MERGE (e)-[:TARGETS]->(b))
RETURN count(e) AS count, sum(CASE WHEN made THEN 1 ELSE 0 END) AS created

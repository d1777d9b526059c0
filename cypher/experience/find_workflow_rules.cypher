// description: decisions (observation -> action) of each task's common subgraph, or of its expert graph when it has no exploration
// params: namespace, task_ids
// returns: task_id, observation, action_key, action_raw, step
// mode: read
UNWIND $task_ids AS task_id
MATCH (t:Task {id: task_id, namespace: $namespace})-[:HAS_GRAPH]->(g:DecisionGraph)
USING INDEX t:Task(id)
WHERE g.namespace = $namespace
  AND g.kind = CASE WHEN t.has_exploration THEN 'common' ELSE 'expert' END
MATCH (g)-[:HAS_ACTION]->(a:Action)-[d:DECIDED]->(b:Action)<-[:HAS_ACTION]-(g)
WHERE a.namespace = $namespace AND b.namespace = $namespace AND coalesce(b.same_label, true)
RETURN task_id, d.observation AS observation, b.key AS action_key, b.raw AS action_raw, d.step AS step
ORDER BY task_id, step

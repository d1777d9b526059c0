// description: edit operations of each task's graph edit path (Algorithm 3), in order
// params: namespace, task_ids
// returns: task_id, operation, position, observation, action_key, action_raw, target_observation, target_key, target_raw
// mode: read
UNWIND $task_ids AS task_id
MATCH (t:Task {id: task_id, namespace: $namespace})-[:HAS_EDIT]->(e:EditOperation)
USING INDEX t:Task(id)
WHERE e.namespace = $namespace
RETURN task_id, e.operation AS operation, e.position AS position, e.observation AS observation,
       e.action_key AS action_key, e.action_raw AS action_raw,
       e.target_observation AS target_observation, e.target_key AS target_key,
       e.target_raw AS target_raw
ORDER BY task_id, position

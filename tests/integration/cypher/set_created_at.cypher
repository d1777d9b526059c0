// description: test-only: set the created_at of one Insight or Task node of one namespace (ISO 8601 text with an offset), as if it had been recorded then
// params: namespace, id, at
// returns: changed
// mode: write
MATCH (n {id: $id})
WHERE n.namespace = $namespace AND (n:Insight OR n:Task)
SET n.created_at = datetime($at)
RETURN count(n) AS changed

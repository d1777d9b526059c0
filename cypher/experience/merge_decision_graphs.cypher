// description: upsert DecisionGraph nodes (exploration, expert, common) and link them to their Task
// params: namespace, rows
// returns: count, created
// mode: write
UNWIND $rows AS row
MATCH (t:Task {id: row.task_id, namespace: $namespace})
USING INDEX t:Task(id)
MERGE (g:DecisionGraph {id: row.id})
ON CREATE SET g.namespace = $namespace, g.created_at = datetime(), g._new = true
SET g.kind = row.kind, g.reward = row.reward, g.node_count = row.node_count,
    g.edge_count = row.edge_count, g.task_key = row.task_key
MERGE (t)-[:HAS_GRAPH]->(g)
WITH g, coalesce(g._new, false) AS made
REMOVE g._new
RETURN count(g) AS count, sum(CASE WHEN made THEN 1 ELSE 0 END) AS created

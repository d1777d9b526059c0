// description: upsert DecisionGraph nodes (exploration, expert, common) and link them to their Task
// params: namespace, rows
// returns: count
// mode: write
UNWIND $rows AS row
MATCH (t:Task {id: row.task_id, namespace: $namespace})
MERGE (g:DecisionGraph {id: row.id})
ON CREATE SET g.namespace = $namespace, g.created_at = datetime()
SET g.kind = row.kind, g.reward = row.reward, g.node_count = row.node_count,
    g.edge_count = row.edge_count, g.task_key = row.task_key
MERGE (t)-[:HAS_GRAPH]->(g)
RETURN count(g) AS count

// description: upsert Action nodes (type, object, receptacle, raw text, integer label) of decision graphs
// params: namespace, rows
// returns: count, created
// mode: write
UNWIND $rows AS row
MATCH (g:DecisionGraph {id: row.graph_id, namespace: $namespace})
USING INDEX g:DecisionGraph(id)
MERGE (a:Action {id: row.id})
ON CREATE SET a.namespace = $namespace, a.created_at = datetime(), a._new = true
SET a.key = row.key, a.raw = row.raw, a.label = row.label, a.type = row.type,
    a.object = row.object, a.receptacle = row.receptacle, a.node = row.node,
    a.same_label = row.same_label
MERGE (g)-[:HAS_ACTION]->(a)
WITH a, coalesce(a._new, false) AS made
REMOVE a._new
RETURN count(a) AS count, sum(CASE WHEN made THEN 1 ELSE 0 END) AS created

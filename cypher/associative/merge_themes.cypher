// description: MERGE Theme nodes (abstraction layer) and GROUPS edges to their episodes (created = nodes new in this call)
// params: namespace, rows
// returns: created
// mode: write
UNWIND $rows AS row
MERGE (t:Theme {id: row.id})
ON CREATE SET t.namespace = $namespace, t.created_at = datetime(), t._new = true
SET t.name = row.name, t.conversation_id = row.conversation_id, t.embedding = row.embedding
WITH t, row, coalesce(t._new, false) AS created
REMOVE t._new
WITH t, row, created
CALL {
  WITH t, row
  UNWIND row.episode_ids AS episode_id
  MATCH (e:Episode {id: episode_id})
  USING INDEX e:Episode(id)
  WHERE e.namespace = $namespace
  MERGE (t)-[:GROUPS]->(e)
}
RETURN count(DISTINCT CASE WHEN created THEN t END) AS created

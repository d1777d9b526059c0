// description: MERGE SemanticUnit nodes (stable facts/preferences) and DERIVED_FROM edges to their episodes (created = nodes new in this call)
// params: namespace, rows
// returns: created
// mode: write
UNWIND $rows AS row
MATCH (e:Episode {id: row.episode_id})
USING INDEX e:Episode(id)
WHERE e.namespace = $namespace
MERGE (s:SemanticUnit {id: row.id})
ON CREATE SET s.namespace = $namespace, s.created_at = datetime(), s.text = row.text,
              s.kind = row.kind, s.conversation_id = row.conversation_id, s.embedding = row.embedding,
              s._new = true
MERGE (s)-[:DERIVED_FROM]->(e)
WITH collect(DISTINCT s) AS nodes
CALL {
  WITH nodes
  UNWIND nodes AS n
  WITH n WHERE n._new = true
  REMOVE n._new
  RETURN count(n) AS created
}
RETURN created

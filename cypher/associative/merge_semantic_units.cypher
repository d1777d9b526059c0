// description: MERGE SemanticUnit nodes (stable facts/preferences) and DERIVED_FROM edges to their episodes
// params: namespace, rows
// returns: semantic_units
// mode: write
UNWIND $rows AS row
MATCH (e:Episode {id: row.episode_id})
WHERE e.namespace = $namespace
MERGE (s:SemanticUnit {id: row.id})
ON CREATE SET s.namespace = $namespace, s.created_at = datetime(), s.text = row.text,
              s.kind = row.kind, s.conversation_id = row.conversation_id, s.embedding = row.embedding
MERGE (s)-[:DERIVED_FROM]->(e)
RETURN count(s) AS semantic_units

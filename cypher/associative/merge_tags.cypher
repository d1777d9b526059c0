// description: MERGE Tag nodes, unique per (cue, tag text), and the cue's HAS_TAG edge (phi c->g)
// params: namespace, rows
// returns: tags
// mode: write
UNWIND $rows AS row
MATCH (c:Cue {id: row.cue_id})
WHERE c.namespace = $namespace
MERGE (g:Tag {id: row.id})
ON CREATE SET g.namespace = $namespace, g.created_at = datetime(), g.cue_id = row.cue_id,
              g.text = row.text, g.embedding = row.embedding
MERGE (c)-[:HAS_TAG]->(g)
RETURN count(g) AS tags

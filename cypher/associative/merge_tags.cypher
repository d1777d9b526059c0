// description: MERGE Tag nodes, unique per (cue, tag text), with their analyzed terms (tags are routed by text), and the cue's HAS_TAG edge (phi c->g) (created = nodes new in this call)
// params: namespace, rows
// returns: created
// mode: write
UNWIND $rows AS row
MATCH (c:Cue {id: row.cue_id})
USING INDEX c:Cue(id)
WHERE c.namespace = $namespace
MERGE (g:Tag {id: row.id})
ON CREATE SET g.namespace = $namespace, g.created_at = datetime(), g.cue_id = row.cue_id,
              g.text = row.text, g.terms = row.terms, g._new = true
MERGE (c)-[:HAS_TAG]->(g)
WITH collect(DISTINCT g) AS nodes
CALL (nodes) {
  UNWIND nodes AS n
  WITH n WHERE n._new = true
  REMOVE n._new
  RETURN count(n) AS created
}
RETURN created

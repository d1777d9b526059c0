// description: a cue-tag-semantic triple: (:Tag)-[:LEADS_TO]->(:SemanticUnit) (phi (c,g)->v)
// params: namespace, rows
// returns: links
// mode: write
UNWIND $rows AS row
MATCH (g:Tag {id: row.tag_id})
USING INDEX g:Tag(id)
MATCH (v:SemanticUnit {id: row.content_id})
USING INDEX v:SemanticUnit(id)
WHERE g.namespace = $namespace AND v.namespace = $namespace
MERGE (g)-[r:LEADS_TO]->(v)
RETURN count(r) AS links

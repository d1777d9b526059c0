// description: a cue-tag-episode triple: (:Tag)-[:LEADS_TO]->(:Episode) (phi (c,g)->v)
// params: namespace, rows
// returns: links
// mode: write
UNWIND $rows AS row
MATCH (g:Tag {id: row.tag_id})
USING INDEX g:Tag(id)
MATCH (v:Episode {id: row.content_id})
USING INDEX v:Episode(id)
WHERE g.namespace = $namespace AND v.namespace = $namespace
MERGE (g)-[r:LEADS_TO]->(v)
RETURN count(r) AS links

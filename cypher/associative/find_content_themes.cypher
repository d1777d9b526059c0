// description: themes that group the given episodes (to go theme->episodes from found evidence)
// params: namespace, content_ids
// returns: id, name, members
// mode: read
UNWIND $content_ids AS content_id
MATCH (t:Theme)-[:GROUPS]->(v:Episode {id: content_id})
WHERE t.namespace = $namespace AND v.namespace = $namespace
RETURN DISTINCT t.id AS id, t.name AS name, COUNT { (t)-[:GROUPS]->({namespace: $namespace}) } AS members

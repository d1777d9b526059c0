// description: Browser view: every cue -> tag -> content path of one episode (and its semantic units and theme)
// params: namespace, source_id
// returns: p
// mode: read
// usage in Neo4j Browser: :param namespace => 'locomo'; :param source_id => 'D1:3'
MATCH (e:Episode {namespace: $namespace, source_id: $source_id})
MATCH p = (c:Cue)-[:HAS_TAG]->(g:Tag)-[:LEADS_TO]->(e)
WHERE c.namespace = $namespace AND g.namespace = $namespace
RETURN p
UNION
MATCH (e:Episode {namespace: $namespace, source_id: $source_id})
MATCH p = (c:Cue)-[:HAS_TAG]->(g:Tag)-[:LEADS_TO]->(s:SemanticUnit)-[:DERIVED_FROM]->(e)
WHERE c.namespace = $namespace AND g.namespace = $namespace AND s.namespace = $namespace
RETURN p
UNION
MATCH (e:Episode {namespace: $namespace, source_id: $source_id})
MATCH p = (t:Theme)-[:GROUPS]->(e)
WHERE t.namespace = $namespace
RETURN p

// description: Browser view: one task that has an exploration, with its exploration and expert action decision graphs (DECIDED edges carry observations) and its graph edit path
// params: namespace
// returns: p
// mode: read
// usage in Neo4j Browser: :param namespace => 'demo'
MATCH (t:Task {namespace: $namespace})
WITH t, COUNT { (t)-[:HAS_EDIT]->(:EditOperation {namespace: $namespace}) } AS edits
WHERE edits > 0
ORDER BY edits DESC, t.id
LIMIT 1
CALL (t) {
  MATCH p = (t)-[:HAS_GRAPH]->(g:DecisionGraph)-[:HAS_ACTION]->(a:Action)
  WHERE g.namespace = $namespace AND g.kind IN ['exploration', 'expert']
    AND a.namespace = $namespace
  RETURN p
  UNION
  MATCH (t)-[:HAS_GRAPH]->(g:DecisionGraph)-[:HAS_ACTION]->(a:Action)-[d:DECIDED]->(b:Action)
  WHERE g.namespace = $namespace AND g.kind IN ['exploration', 'expert']
    AND a.namespace = $namespace AND b.namespace = $namespace
  MATCH p = (a)-[d]->(b)
  RETURN p
  UNION
  MATCH p = (t)-[:HAS_EDIT]->(e:EditOperation)-[:EDITS|TARGETS]->(a:Action)
  WHERE e.namespace = $namespace AND a.namespace = $namespace
  RETURN p
}
RETURN p

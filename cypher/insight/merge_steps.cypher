// description: MERGE a query's interaction graph G_inter: Step nodes chained FIRST_STEP / NEXT_STEP in position order
// params: namespace, query_id, steps
// returns: steps, created
// mode: write
MATCH (q:Query {id: $query_id, namespace: $namespace})
USING INDEX q:Query(id)
UNWIND $steps AS step
MERGE (s:Step {id: step.id, namespace: $namespace})
ON CREATE SET s.content = step.content, s.position = step.position, s.query_id = q.id,
              s.created_at = datetime(), s._new = true
WITH q, s, coalesce(s._new, false) AS made
REMOVE s._new
WITH q, s, made ORDER BY s.position
WITH q, collect(s) AS chain, sum(CASE WHEN made THEN 1 ELSE 0 END) AS created
WITH q, chain, created, chain[0] AS first
MERGE (q)-[:FIRST_STEP]->(first)
WITH chain, created
CALL (chain) {
  UNWIND range(0, size(chain) - 2) AS i
  WITH chain[i] AS a, chain[i + 1] AS b
  MERGE (a)-[:NEXT_STEP]->(b)
}
RETURN size(chain) AS steps, created

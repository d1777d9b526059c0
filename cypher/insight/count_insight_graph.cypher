// description: sizes of one namespace's insight memory: queries, steps, active and archived insights, revisions, decisions by operation
// params: namespace
// returns: queries, steps, active_insights, archived_insights, revisions, decisions
// mode: read
CALL () { MATCH (q:Query {namespace: $namespace}) RETURN count(q) AS queries }
CALL () { MATCH (s:Step {namespace: $namespace}) RETURN count(s) AS steps }
CALL () {
  MATCH (i:Insight {namespace: $namespace})
  RETURN count(CASE WHEN i.active THEN 1 END) AS active_insights,
         count(CASE WHEN NOT i.active THEN 1 END) AS archived_insights
}
CALL () {
  MATCH (n:Insight {namespace: $namespace})-[:REVISION_OF]->(o:Insight {namespace: $namespace})
  RETURN count(*) AS revisions
}
CALL () {
  OPTIONAL MATCH (d:ControllerDecision {namespace: $namespace})
  WITH d.operation AS operation, count(d) AS n
  RETURN collect(CASE WHEN operation IS NULL THEN null ELSE {operation: operation, count: n} END) AS decisions
}
RETURN queries, steps, active_insights, archived_insights, revisions, decisions

// description: audit: MERGE one ControllerDecision per controller output (eqs. 11-12) linked FOR_QUERY, DECIDED_ON (judged insight) and RESULTED_IN (created insight)
// params: namespace, query_id, rows
// returns: recorded, created
// mode: write
MATCH (q:Query {id: $query_id, namespace: $namespace})
UNWIND $rows AS row
MERGE (d:ControllerDecision {id: row.id, namespace: $namespace})
ON CREATE SET d.operation = row.operation, d.controller = row.controller, d.reason = row.reason,
              d.status = row.status, d.operation_set = row.operation_set, d.query_id = q.id,
              d.insight_id = row.insight_id, d.result_insight_id = row.result_insight_id,
              d.created_at = datetime(), d._new = true
WITH q, d, row, coalesce(d._new, false) AS made
REMOVE d._new
MERGE (d)-[:FOR_QUERY]->(q)
WITH d, row, made
CALL (d, row) {
  OPTIONAL MATCH (judged:Insight {id: row.insight_id, namespace: $namespace})
  FOREACH (_ IN CASE WHEN judged IS NULL THEN [] ELSE [1] END | MERGE (d)-[:DECIDED_ON]->(judged))
  WITH d, row
  OPTIONAL MATCH (created:Insight {id: row.result_insight_id, namespace: $namespace})
  FOREACH (_ IN CASE WHEN created IS NULL THEN [] ELSE [1] END | MERGE (d)-[:RESULTED_IN]->(created))
  RETURN count(*) AS linked
}
RETURN count(d) AS recorded, sum(CASE WHEN made THEN 1 ELSE 0 END) AS created

// description: audit: MERGE one ControllerDecision per controller output (eqs. 11-12) linked FOR_QUERY, DECIDED_ON (judged insight) and RESULTED_IN (created insight); a new decision gets seq = the namespace's latest seq + its position in $rows + 1, so decisions sharing a transaction's created_at keep their order (concurrent writers may share a seq; readers break ties by created_at, then id)
// params: namespace, query_id, rows
// returns: recorded, created
// mode: write
MATCH (q:Query {id: $query_id, namespace: $namespace})
USING INDEX q:Query(id)
CALL () {
  OPTIONAL MATCH (last:ControllerDecision {namespace: $namespace})
  WHERE last.seq IS NOT NULL
  WITH last ORDER BY last.seq DESC LIMIT 1
  RETURN coalesce(last.seq, 0) AS base
}
UNWIND range(0, size($rows) - 1) AS position
WITH q, base, position, $rows[position] AS row
MERGE (d:ControllerDecision {id: row.id, namespace: $namespace})
ON CREATE SET d.operation = row.operation, d.controller = row.controller, d.reason = row.reason,
              d.status = row.status, d.operation_set = row.operation_set, d.query_id = q.id,
              d.insight_id = row.insight_id, d.result_insight_id = row.result_insight_id,
              d.created_at = datetime(), d.seq = base + position + 1, d._new = true
WITH q, d, row, coalesce(d._new, false) AS made
REMOVE d._new
MERGE (d)-[:FOR_QUERY]->(q)
WITH d, row, made
CALL (d, row) {
  OPTIONAL MATCH (judged:Insight {id: row.insight_id, namespace: $namespace})
  USING INDEX judged:Insight(id)
  FOREACH (_ IN CASE WHEN judged IS NULL THEN [] ELSE [1] END | MERGE (d)-[:DECIDED_ON]->(judged))
  WITH d, row
  OPTIONAL MATCH (created:Insight {id: row.result_insight_id, namespace: $namespace})
  USING INDEX created:Insight(id)
  FOREACH (_ IN CASE WHEN created IS NULL THEN [] ELSE [1] END | MERGE (d)-[:RESULTED_IN]->(created))
  RETURN count(*) AS linked
}
RETURN count(d) AS recorded, sum(CASE WHEN made THEN 1 ELSE 0 END) AS created

// description: Browser view: the most-evidenced insight with its supporting (Ω+) and conflicting (Ω−) queries, its revisions and the controller decisions about it
// params: namespace
// returns: p
// mode: read
// usage in Neo4j Browser: :param namespace => 'demo'
MATCH (i:Insight {namespace: $namespace})
OPTIONAL MATCH (i)-[e:SUPPORTS|CONFLICTS_WITH]->(:Query)
WITH i, count(e) AS evidence
ORDER BY evidence DESC, i.id
LIMIT 1
CALL (i) {
  MATCH p = (i)-[:SUPPORTS|CONFLICTS_WITH]->(q:Query)
  WHERE q.namespace = $namespace
  RETURN p LIMIT 25
  UNION
  MATCH p = (i)-[:REVISION_OF*1..3]-(other:Insight)
  WHERE other.namespace = $namespace
  RETURN p
  UNION
  MATCH p = (d:ControllerDecision)-[:DECIDED_ON|RESULTED_IN]->(i)
  WHERE d.namespace = $namespace
  RETURN p LIMIT 10
}
RETURN p

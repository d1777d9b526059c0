// description: current state of insights by id: content, z, version, evidence counts and full Omega+ / Omega- query ids
// params: namespace, ids
// returns: id, content, active, version, positive_evidence, negative_evidence, supporting_query_ids, conflicting_query_ids
// mode: read
UNWIND $ids AS insight_id
MATCH (i:Insight {id: insight_id, namespace: $namespace})
USING INDEX i:Insight(id)
RETURN i.id AS id, i.content AS content, i.active AS active, i.version AS version,
       coalesce(i.positive_evidence, 0) AS positive_evidence,
       coalesce(i.negative_evidence, 0) AS negative_evidence,
       [(i)-[:SUPPORTS]->(q:Query) WHERE q.namespace = $namespace | q.id] AS supporting_query_ids,
       [(i)-[:CONFLICTS_WITH]->(q:Query) WHERE q.namespace = $namespace | q.id] AS conflicting_query_ids

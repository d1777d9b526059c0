// description: one insight's audit trail: state, evidence, revision chain both ways, CONTEXTUALIZES links and every ControllerDecision about it in decision order (seq, then created_at, then id; all hops namespace-checked)
// params: namespace, insight_id
// returns: id, content, active, version, positive_evidence, negative_evidence, supporting_query_ids, conflicting_query_ids, revision_of, revised_by, contextualized_by, decisions
// mode: read
MATCH (i:Insight {id: $insight_id, namespace: $namespace})
USING INDEX i:Insight(id)
RETURN i.id AS id, i.content AS content, i.active AS active, i.version AS version,
       coalesce(i.positive_evidence, 0) AS positive_evidence,
       coalesce(i.negative_evidence, 0) AS negative_evidence,
       [(i)-[:SUPPORTS]->(q:Query) WHERE q.namespace = $namespace | q.id] AS supporting_query_ids,
       [(i)-[:CONFLICTS_WITH]->(q:Query) WHERE q.namespace = $namespace | q.id] AS conflicting_query_ids,
       [p = (i)-[:REVISION_OF*1..]->(o:Insight)
        WHERE all(x IN nodes(p) WHERE x.namespace = $namespace) | o.id] AS revision_of,
       [p = (n:Insight)-[:REVISION_OF*1..]->(i)
        WHERE all(x IN nodes(p) WHERE x.namespace = $namespace) | n.id] AS revised_by,
       [(m:Insight)-[c:CONTEXTUALIZES]->(i) WHERE m.namespace = $namespace
        | {insight_id: m.id, via_query: c.via_query}] AS contextualized_by,
       COLLECT {
         MATCH (d:ControllerDecision)-[:DECIDED_ON|RESULTED_IN]->(i)
         WHERE d.namespace = $namespace
         WITH d ORDER BY coalesce(d.seq, 0), d.created_at, d.id
         RETURN {id: d.id, operation: d.operation, controller: d.controller, reason: d.reason,
                 status: d.status, operation_set: d.operation_set, query_id: d.query_id,
                 created_at: toString(d.created_at), seq: d.seq}
       } AS decisions

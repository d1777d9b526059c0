// description: add one query to Omega- of each listed insight (CONFLICTS_WITH) and count it, in ONE statement: the insight is write-locked before the MERGE so concurrent feedback loses nothing
// params: namespace, query_id, insight_ids
// returns: id, positive_evidence, negative_evidence
// mode: write
MATCH (q:Query {id: $query_id, namespace: $namespace})
USING INDEX q:Query(id)
UNWIND $insight_ids AS insight_id
MATCH (i:Insight {id: insight_id, namespace: $namespace})
USING INDEX i:Insight(id)
SET i.evidence_version = coalesce(i.evidence_version, 0) + 1
MERGE (i)-[e:CONFLICTS_WITH]->(q)
ON CREATE SET e.created_at = datetime(),
              i.negative_evidence = coalesce(i.negative_evidence, 0) + 1
RETURN i.id AS id, coalesce(i.positive_evidence, 0) AS positive_evidence,
       i.negative_evidence AS negative_evidence

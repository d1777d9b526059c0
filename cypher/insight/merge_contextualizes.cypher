// description: MERGE the hyper-edge (iota_m, iota_n, q_j) of eq. 5 as (m)-[:CONTEXTUALIZES {via_query}]->(n), all three in the namespace
// params: namespace, from_id, to_id, via_query_id
// returns: from_id, to_id, via_query
// mode: write
MATCH (m:Insight {id: $from_id, namespace: $namespace})
USING INDEX m:Insight(id)
MATCH (n:Insight {id: $to_id, namespace: $namespace})
USING INDEX n:Insight(id)
MATCH (q:Query {id: $via_query_id, namespace: $namespace})
USING INDEX q:Query(id)
MERGE (m)-[c:CONTEXTUALIZES {via_query: q.id}]->(n)
ON CREATE SET c.created_at = datetime()
RETURN m.id AS from_id, n.id AS to_id, c.via_query AS via_query

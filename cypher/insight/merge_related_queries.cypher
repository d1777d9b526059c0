// description: MERGE RELATED_QUERY edges (semantic dependencies E_q, eq. 1) from one query to others of the same namespace
// params: namespace, query_id, rows
// returns: linked
// mode: write
MATCH (q:Query {id: $query_id, namespace: $namespace})
USING INDEX q:Query(id)
UNWIND $rows AS row
MATCH (other:Query {id: row.id, namespace: $namespace})
USING INDEX other:Query(id)
WHERE other <> q
MERGE (q)-[r:RELATED_QUERY]->(other)
ON CREATE SET r.similarity = row.similarity, r.created_at = datetime()
RETURN count(r) AS linked

// description: EvoGraph-Mem retrieval: top-k similar queries (eq. 2) among the queries that lead to an active insight (directly by SUPPORTS or through one RELATED_QUERY hop), so archived insights' queries never crowd live ones out of the seed set (vector index oversampled, exact in-namespace scan when it yields fewer than k; stored vectors cosine cannot score are skipped), 1-hop RELATED_QUERY expansion (eqs. 3-4), active insights supported by the expanded set (eq. 7), s, c and r = s - lambda*c (eqs. 8-9), top-B (eq. 10)
// params: namespace, embedding, k, oversample, lambda, b
// returns: id, content, version, s, c, r, supporting_query_ids, conflicting_query_ids, positive_evidence, negative_evidence, seed_query_ids, expanded_query_ids
// mode: read
CALL db.index.vector.queryNodes('query_embedding', $oversample, $embedding) YIELD node, score
WITH node, score WHERE node.namespace = $namespace
  AND (EXISTS { (node)<-[:SUPPORTS]-(live:Insight {namespace: $namespace}) WHERE live.active = true }
       OR EXISTS { (node)-[:RELATED_QUERY]-(:Query {namespace: $namespace})<-[:SUPPORTS]-(live:Insight {namespace: $namespace})
                   WHERE live.active = true })
WITH node ORDER BY score DESC, node.id LIMIT $k
WITH collect(node) AS indexed
CALL (indexed) {
  MATCH (q:Query {namespace: $namespace})
  WHERE size(indexed) < $k
    // skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
    AND size(q.embedding) = size($embedding)
    AND all(x IN q.embedding WHERE abs(x) <= 1.7976931348623157e308)
    AND any(x IN q.embedding WHERE x <> 0.0)
    AND (EXISTS { (q)<-[:SUPPORTS]-(live:Insight {namespace: $namespace}) WHERE live.active = true }
         OR EXISTS { (q)-[:RELATED_QUERY]-(:Query {namespace: $namespace})<-[:SUPPORTS]-(live:Insight {namespace: $namespace})
                     WHERE live.active = true })
  WITH q ORDER BY vector.similarity.cosine(q.embedding, $embedding) DESC, q.id LIMIT $k
  RETURN collect(q) AS scanned
}
WITH CASE WHEN size(indexed) < $k THEN scanned ELSE indexed END AS seeds
UNWIND seeds AS seed
OPTIONAL MATCH (seed)-[:RELATED_QUERY]-(neighbour:Query)
WHERE neighbour.namespace = $namespace
WITH collect(DISTINCT seed) AS seeds, collect(DISTINCT neighbour) AS neighbours
WITH [x IN seeds | x.id] AS seed_ids,
     [x IN seeds | x.id] + [x IN neighbours WHERE NOT x IN seeds | x.id] AS expanded_ids
UNWIND expanded_ids AS expanded_id
MATCH (eq:Query {id: expanded_id, namespace: $namespace})<-[:SUPPORTS]-(i:Insight {namespace: $namespace})
USING INDEX eq:Query(id)
WHERE i.active = true
WITH seed_ids, expanded_ids, i, collect(DISTINCT eq.id) AS supporting
WITH seed_ids, expanded_ids, i, supporting,
     [(i)-[:CONFLICTS_WITH]->(cq:Query) WHERE cq.namespace = $namespace AND cq.id IN expanded_ids | cq.id] AS conflicting
WITH seed_ids, expanded_ids, i, supporting, conflicting,
     size(supporting) AS s, size(conflicting) AS c
RETURN i.id AS id, i.content AS content, i.version AS version, s, c,
       toFloat(s) - $lambda * c AS r,
       supporting AS supporting_query_ids, conflicting AS conflicting_query_ids,
       coalesce(i.positive_evidence, 0) AS positive_evidence,
       coalesce(i.negative_evidence, 0) AS negative_evidence,
       seed_ids AS seed_query_ids, expanded_ids AS expanded_query_ids
ORDER BY r DESC, s DESC, id
LIMIT $b

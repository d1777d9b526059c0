// description: EvoGraph-Mem retrieval: top-k similar queries (eq. 2) among the queries that lead to an active insight (directly by SUPPORTS or through one RELATED_QUERY hop), so archived insights' queries never crowd live ones out of the seed set (an exact cosine scan of the namespace's own queries, ties by id, so the seeds never depend on other namespaces' queries as a post-filtered vector-index top list would; stored vectors cosine cannot score are skipped), 1-hop RELATED_QUERY expansion (eqs. 3-4), active insights supported by the expanded set (eq. 7), s, c and r = s - lambda*c (eqs. 8-9), top-B (eq. 10); $since / $until (epoch microseconds of UTC instants, or null: open) keep only insights recorded in the window (this version's created_at, since <= created_at < until), in the seed set's live-insight test as well as in the answer, before the top-B cut; $as_of (epoch microseconds, or null: now; graphmem.time_travel): an insight counts as live when it is active now or was archived after then (archived_at later; a null archived_at makes the comparison null, so an insight archived without one stays out), and only queries recorded by then (created_at) seed or expand
// params: namespace, embedding, k, lambda, b, since, until, as_of
// returns: id, content, version, s, c, r, supporting_query_ids, conflicting_query_ids, positive_evidence, negative_evidence, seed_query_ids, expanded_query_ids
// mode: read
MATCH (q:Query {namespace: $namespace})
// skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
WHERE size(q.embedding) = size($embedding)
  AND ($as_of IS NULL OR q.created_at.epochMillis * 1000 + q.created_at.microsecond % 1000 <= $as_of)
  AND all(x IN q.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN q.embedding WHERE x <> 0.0)
  AND (EXISTS { (q)<-[:SUPPORTS]-(live:Insight {namespace: $namespace})
                 WHERE CASE WHEN $as_of IS NULL THEN live.active = true ELSE live.active = true OR live.archived_at.epochMillis * 1000 + live.archived_at.microsecond % 1000 > $as_of END
                 AND CASE WHEN $since IS NULL THEN true ELSE live.created_at.epochMillis * 1000 + live.created_at.microsecond % 1000 >= $since END
                 AND CASE WHEN $until IS NULL THEN true ELSE live.created_at.epochMillis * 1000 + live.created_at.microsecond % 1000 < $until END }
       OR EXISTS { (q)-[:RELATED_QUERY]-(:Query {namespace: $namespace})<-[:SUPPORTS]-(live:Insight {namespace: $namespace})
                   WHERE CASE WHEN $as_of IS NULL THEN live.active = true ELSE live.active = true OR live.archived_at.epochMillis * 1000 + live.archived_at.microsecond % 1000 > $as_of END
                     AND CASE WHEN $since IS NULL THEN true ELSE live.created_at.epochMillis * 1000 + live.created_at.microsecond % 1000 >= $since END
                     AND CASE WHEN $until IS NULL THEN true ELSE live.created_at.epochMillis * 1000 + live.created_at.microsecond % 1000 < $until END })
WITH q ORDER BY vector.similarity.cosine(q.embedding, $embedding) DESC, q.id LIMIT $k
WITH collect(q) AS seeds
UNWIND seeds AS seed
OPTIONAL MATCH (seed)-[:RELATED_QUERY]-(neighbour:Query)
WHERE neighbour.namespace = $namespace
  AND ($as_of IS NULL OR neighbour.created_at.epochMillis * 1000 + neighbour.created_at.microsecond % 1000 <= $as_of)
WITH collect(DISTINCT seed) AS seeds, collect(DISTINCT neighbour) AS neighbours
WITH [x IN seeds | x.id] AS seed_ids,
     [x IN seeds | x.id] + [x IN neighbours WHERE NOT x IN seeds | x.id] AS expanded_ids
UNWIND expanded_ids AS expanded_id
MATCH (eq:Query {id: expanded_id, namespace: $namespace})<-[:SUPPORTS]-(i:Insight {namespace: $namespace})
USING INDEX eq:Query(id)
WHERE CASE WHEN $as_of IS NULL THEN i.active = true ELSE i.active = true OR i.archived_at.epochMillis * 1000 + i.archived_at.microsecond % 1000 > $as_of END
  AND ($since IS NULL OR i.created_at.epochMillis * 1000 + i.created_at.microsecond % 1000 >= $since)
  AND ($until IS NULL OR i.created_at.epochMillis * 1000 + i.created_at.microsecond % 1000 < $until)
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

// description: cross-topic RELATED_EVENT edges from new events to their most similar events of other topics in the same conversation (exact in-namespace scan)
// params: namespace, event_ids, threshold, per_event
// returns: edges
// mode: write
UNWIND $event_ids AS eid
MATCH (e:Event {id: eid})
WHERE e.namespace = $namespace
  // skip a stored vector cosine cannot score (missing, NaN/infinity, zero); widths compared below
  AND all(x IN e.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN e.embedding WHERE x <> 0.0)
MATCH (n:Event {namespace: $namespace})
WHERE n.conversation = e.conversation AND n.topic_id <> e.topic_id
  AND size(n.embedding) = size(e.embedding)
  AND all(x IN n.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN n.embedding WHERE x <> 0.0)
WITH e, n, CASE WHEN size(n.embedding) = size(e.embedding)
                THEN 2 * vector.similarity.cosine(e.embedding, n.embedding) - 1 END AS sim
WHERE sim >= $threshold
WITH e, n, sim ORDER BY sim DESC
WITH e, collect({n: n, sim: sim})[0..$per_event] AS top
UNWIND top AS x
WITH e, x.n AS n, x.sim AS sim
MERGE (e)-[r:RELATED_EVENT]-(n)
ON CREATE SET r.similarity = sim
RETURN count(r) AS edges

// description: vector search over semantic states (oversampled, namespace-filtered), with evidence source ids
// params: namespace, embedding, oversample, k
// returns: id, content, value, condition, subject, valid_from, valid_to, conflict, current, topic_id, topic, source_ids, score
// mode: read
CALL db.index.vector.queryNodes('state_embedding', $oversample, $embedding) YIELD node, score
WITH node AS s, score
WHERE s.namespace = $namespace
WITH s, score ORDER BY score DESC LIMIT $k
MATCH (s)-[:SUPPORTED_BY]->(t:Topic {namespace: $namespace})
OPTIONAL MATCH (s)-[:EVIDENCED_BY]->(e:Event {namespace: $namespace})
WITH s, t, score, e ORDER BY e.sort_key
RETURN s.id AS id, s.content AS content, s.value AS value, s.condition AS condition,
       s.subject AS subject, s.valid_from AS valid_from, s.valid_to AS valid_to,
       coalesce(s.conflict, false) AS conflict, EXISTS { (t)-[:CURRENT_STATE]->(s) } AS current,
       t.id AS topic_id, t.name AS topic,
       reduce(acc = [], x IN collect(e.source_ids) | acc + x) AS source_ids, 2 * score - 1 AS score
ORDER BY score DESC, id

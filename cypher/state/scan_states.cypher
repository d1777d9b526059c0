// description: exact in-namespace cosine scan over states (fallback for small tenants), with evidence source ids
// params: namespace, embedding, k
// returns: id, content, value, condition, subject, valid_from, valid_to, conflict, current, topic_id, topic, source_ids, score
// mode: read
MATCH (s:State {namespace: $namespace})
// skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
WHERE size(s.embedding) = size($embedding)
  AND all(x IN s.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN s.embedding WHERE x <> 0.0)
WITH s, 2 * vector.similarity.cosine(s.embedding, $embedding) - 1 AS score
ORDER BY score DESC LIMIT $k
MATCH (s)-[:SUPPORTED_BY]->(t:Topic {namespace: $namespace})
OPTIONAL MATCH (s)-[:EVIDENCED_BY]->(e:Event {namespace: $namespace})
WITH s, t, score, e ORDER BY e.sort_key
RETURN s.id AS id, s.content AS content, s.value AS value, s.condition AS condition,
       s.subject AS subject, s.valid_from AS valid_from, s.valid_to AS valid_to,
       coalesce(s.conflict, false) AS conflict, EXISTS { (t)-[:CURRENT_STATE]->(s) } AS current,
       t.id AS topic_id, t.name AS topic,
       reduce(acc = [], x IN collect(e.source_ids) | acc + x) AS source_ids, score
ORDER BY score DESC, id

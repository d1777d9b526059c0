// description: events whose occurred_at lies in [start, end], ranked by cosine to the question
// params: namespace, start, end, embedding, k
// returns: id, text, speaker, source_ids, occurred_at, topic_id, topic, score
// mode: read
MATCH (e:Event {namespace: $namespace})
USING INDEX e:Event(namespace)
WHERE e.occurred_at >= $start AND e.occurred_at <= $end
  // skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
  AND size(e.embedding) = size($embedding)
  AND all(x IN e.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN e.embedding WHERE x <> 0.0)
WITH e, 2 * vector.similarity.cosine(e.embedding, $embedding) - 1 AS score
ORDER BY score DESC, e.id
LIMIT $k
OPTIONAL MATCH (e)-[:SUPPORTED_BY]->(t:Topic {namespace: $namespace})
RETURN e.id AS id, e.text AS text, e.speaker AS speaker, e.source_ids AS source_ids,
       e.occurred_at AS occurred_at, t.id AS topic_id, t.name AS topic, score
ORDER BY score DESC, id

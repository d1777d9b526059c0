// description: vector search over events (oversampled index query, filtered by namespace); score is cosine in [-1, 1]
// params: namespace, embedding, oversample, k
// returns: id, text, speaker, source_ids, occurred_at, topic_id, topic, score
// mode: read
CALL db.index.vector.queryNodes('event_embedding', $oversample, $embedding) YIELD node, score
WITH node AS e, score
WHERE e.namespace = $namespace
OPTIONAL MATCH (e)-[:SUPPORTED_BY]->(t:Topic {namespace: $namespace})
RETURN e.id AS id, e.text AS text, e.speaker AS speaker, e.source_ids AS source_ids,
       e.occurred_at AS occurred_at, t.id AS topic_id, t.name AS topic, 2 * score - 1 AS score
ORDER BY score DESC, id
LIMIT $k

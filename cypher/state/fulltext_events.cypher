// description: keyword (BM25, english analyzer) search over event text and speaker, filtered by namespace
// params: namespace, query, k
// returns: id, text, speaker, source_ids, occurred_at, topic_id, topic, score
// mode: read
CALL db.index.fulltext.queryNodes('event_text', $query) YIELD node, score
WITH node AS e, score
WHERE e.namespace = $namespace
WITH e, score ORDER BY score DESC, e.id LIMIT $k
OPTIONAL MATCH (e)-[:SUPPORTED_BY]->(t:Topic {namespace: $namespace})
RETURN e.id AS id, e.text AS text, e.speaker AS speaker, e.source_ids AS source_ids,
       e.occurred_at AS occurred_at, t.id AS topic_id, t.name AS topic, score
ORDER BY score DESC, id

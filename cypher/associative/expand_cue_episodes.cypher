// description: action cue->episode without tag routing (ablation CE): every episode any tag of the cue leads to
// params: namespace, cue_ids, embedding, per_cue
// returns: cue_id, id, text, source_ids, conversation_id, occurred_at, score
// mode: read
UNWIND $cue_ids AS cue_id
MATCH (c:Cue {id: cue_id})-[:HAS_TAG]->(g:Tag)-[:LEADS_TO]->(v:Episode)
WHERE c.namespace = $namespace AND g.namespace = $namespace AND v.namespace = $namespace
  // skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
  AND size(v.embedding) = size($embedding)
  AND all(x IN v.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN v.embedding WHERE x <> 0.0)
WITH DISTINCT c, v, vector.similarity.cosine(v.embedding, $embedding) AS score
ORDER BY score DESC
WITH c, collect({v: v, score: score})[..$per_cue] AS hits
UNWIND hits AS hit
WITH c, hit.v AS v, hit.score AS score
RETURN c.id AS cue_id, v.id AS id, v.text AS text, [v.source_id] AS source_ids,
       v.conversation_id AS conversation_id, toString(v.occurred_at) AS occurred_at, score

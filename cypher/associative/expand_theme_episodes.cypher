// description: action theme->episodes: episodes grouped by the given themes, best per theme by cosine to the question
// params: namespace, theme_ids, embedding, per_theme
// returns: theme_id, theme_name, id, text, source_ids, conversation_id, occurred_at, score
// mode: read
UNWIND $theme_ids AS theme_id
MATCH (t:Theme {id: theme_id})-[:GROUPS]->(v:Episode)
WHERE t.namespace = $namespace AND v.namespace = $namespace
  // skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
  AND size(v.embedding) = size($embedding)
  AND all(x IN v.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN v.embedding WHERE x <> 0.0)
WITH t, v, vector.similarity.cosine(v.embedding, $embedding) AS score
ORDER BY score DESC
WITH t, collect({v: v, score: score})[..$per_theme] AS hits
UNWIND hits AS hit
WITH t, hit.v AS v, hit.score AS score
RETURN t.id AS theme_id, t.name AS theme_name, v.id AS id, v.text AS text,
       [v.source_id] AS source_ids, v.conversation_id AS conversation_id,
       toString(v.occurred_at) AS occurred_at, score

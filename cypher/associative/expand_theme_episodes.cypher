// description: action theme->episodes: episodes grouped by the given themes, best per theme by cosine to the question
// params: namespace, theme_ids, embedding, per_theme
// returns: theme_id, theme_name, id, text, source_ids, conversation_id, occurred_at, score
// mode: read
UNWIND $theme_ids AS theme_id
MATCH (t:Theme {id: theme_id})-[:GROUPS]->(v:Episode)
WHERE t.namespace = $namespace AND v.namespace = $namespace
WITH t, v, vector.similarity.cosine(v.embedding, $embedding) AS score
ORDER BY score DESC
WITH t, collect({v: v, score: score})[..$per_theme] AS hits
UNWIND hits AS hit
WITH t, hit.v AS v, hit.score AS score
RETURN t.id AS theme_id, t.name AS theme_name, v.id AS id, v.text AS text,
       [v.source_id] AS source_ids, v.conversation_id AS conversation_id,
       toString(v.occurred_at) AS occurred_at, score

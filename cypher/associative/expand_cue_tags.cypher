// description: action cue->tag, phi(c->g): tags of the active cues, best per cue by cosine to the question
// params: namespace, cue_ids, embedding, per_cue
// returns: cue_id, cue_text, tag_id, tag_text, score, contents
// mode: read
UNWIND $cue_ids AS cue_id
MATCH (c:Cue {id: cue_id})-[:HAS_TAG]->(g:Tag)
WHERE c.namespace = $namespace AND g.namespace = $namespace
  // skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
  AND size(g.embedding) = size($embedding)
  AND all(x IN g.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN g.embedding WHERE x <> 0.0)
WITH c, g, vector.similarity.cosine(g.embedding, $embedding) AS score
ORDER BY score DESC
WITH c, collect({g: g, score: score})[..$per_cue] AS tags
UNWIND tags AS tag
WITH c, tag.g AS g, tag.score AS score
RETURN c.id AS cue_id, c.text AS cue_text, g.id AS tag_id, g.text AS tag_text,
       score, COUNT { (g)-[:LEADS_TO]->({namespace: $namespace}) } AS contents

// description: backward action content->cue/tag: the cues (and tags) that lead to found contents
// params: namespace, content_ids, embedding
// returns: content_id, cue_id, cue_text, kind, tag_text, score, contents
// mode: read
UNWIND $content_ids AS content_id
CALL (content_id) {
  MATCH (v:Episode {id: content_id}) RETURN v
  UNION
  MATCH (v:SemanticUnit {id: content_id}) RETURN v
}
MATCH (c:Cue)-[:HAS_TAG]->(g:Tag)-[:LEADS_TO]->(v)
WHERE v.namespace = $namespace AND g.namespace = $namespace AND c.namespace = $namespace
  // skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
  AND size(c.embedding) = size($embedding)
  AND all(x IN c.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN c.embedding WHERE x <> 0.0)
RETURN content_id, c.id AS cue_id, c.text AS cue_text, c.kind AS kind, g.text AS tag_text,
       vector.similarity.cosine(c.embedding, $embedding) AS score,
       COUNT { (c)-[:HAS_TAG]->(:Tag {namespace: $namespace})-[:LEADS_TO]->({namespace: $namespace}) } AS contents

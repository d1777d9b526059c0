// description: action cue+tag->content, phi((c,g)->v): contents of (cue id, tag text) pairs via the (namespace, cue_id, text) Tag index
// params: namespace, pairs, embedding
// returns: cue_id, tag_id, tag_text, id, kind, text, source_ids, conversation_id, occurred_at, score
// mode: read
UNWIND $pairs AS pair
MATCH (g:Tag {namespace: $namespace, cue_id: pair.cue_id, text: pair.tag_text})-[:LEADS_TO]->(v)
WHERE v.namespace = $namespace AND (v:Episode OR v:SemanticUnit)
  // skip a stored vector cosine cannot score (wrong width, NaN/infinity, zero)
  AND size(v.embedding) = size($embedding)
  AND all(x IN v.embedding WHERE abs(x) <= 1.7976931348623157e308)
  AND any(x IN v.embedding WHERE x <> 0.0)
RETURN g.cue_id AS cue_id, g.id AS tag_id, g.text AS tag_text, v.id AS id,
       CASE WHEN v:Episode THEN 'episode' ELSE 'semantic_unit' END AS kind, v.text AS text,
       CASE WHEN v:Episode THEN [v.source_id]
            ELSE [(v)-[:DERIVED_FROM]->(e:Episode) WHERE e.namespace = $namespace | e.source_id] END
         AS source_ids,
       v.conversation_id AS conversation_id, toString(v.occurred_at) AS occurred_at,
       vector.similarity.cosine(v.embedding, $embedding) AS score

// description: one active-reconstruction round (MRAgent): activate cues — the question's cues matched to Cue nodes by normalised text, and the cues of the given source contents (backward content -> cue) — skipping visited cues and hubs (cues leading to more than $max_cue_contents episodes); per cue its $tags_per_cue tags with the most question terms (phi c -> g), and per tag at most $contents_per_tag contents (phi (c,g) -> v): episodes, and semantic units with the episode they are derived from
// params: namespace, cue_texts, source_ids, skip_cues, skip_tags, terms, max_cue_contents, tags_per_cue, contents_per_tag
// returns: cue_id, cue_text, kind, contents, source, tags
// mode: read
// values: plain
CALL () {
  UNWIND $cue_texts AS text
  MATCH (c:Cue {namespace: $namespace, text: text})
  RETURN collect({cue: c, source: 'question'}) AS question_cues
}
CALL () {
  UNWIND $source_ids AS sid
  MATCH (v:Episode {id: sid})<-[:LEADS_TO]-(:Tag)<-[:HAS_TAG]-(c:Cue)
  USING INDEX v:Episode(id)
  WHERE v.namespace = $namespace AND c.namespace = $namespace
  RETURN collect(DISTINCT {cue: c, source: sid}) AS content_cues
}
UNWIND question_cues + content_cues AS activated
WITH activated.cue AS c, activated.source AS source
WHERE NOT c.id IN $skip_cues AND coalesce(c.contents, 0) <= $max_cue_contents
CALL (c) {
  MATCH (c)-[:HAS_TAG]->(g:Tag)
  WHERE g.namespace = $namespace AND NOT g.id IN $skip_tags
  WITH g, [w IN split(coalesce(g.terms, ''), ' ') WHERE w <> ''] AS words
  WITH g, words, size([w IN words WHERE w IN $terms]) AS hits
  ORDER BY hits DESC, g.id
  LIMIT $tags_per_cue
  CALL (g) {
    MATCH (g)-[:LEADS_TO]->(v)
    WHERE v.namespace = $namespace AND (v:Episode OR v:SemanticUnit)
    WITH v ORDER BY v.id LIMIT $contents_per_tag
    OPTIONAL MATCH (v:SemanticUnit)-[:DERIVED_FROM]->(e:Episode)
    WHERE e.namespace = $namespace
    RETURN collect({id: v.id, kind: CASE WHEN v:Episode THEN 'episode' ELSE 'semantic_unit' END,
                    text: v.text, episode_id: CASE WHEN v:Episode THEN v.id ELSE e.id END}) AS contents
  }
  RETURN collect({id: g.id, text: g.text, words: words, hits: hits, contents: contents}) AS tags
}
RETURN c.id AS cue_id, c.text AS cue_text, c.kind AS kind, coalesce(c.contents, 0) AS contents,
       source, tags

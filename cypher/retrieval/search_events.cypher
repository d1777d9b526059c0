// description: one hybrid-retrieval round over Event units of one namespace: per-namespace BM25 statistics (N, avgdl, df per query term), full-text candidates (namespace token required), dense candidates (exact cosine scan when the namespace is small or the vector index is starved, else the oversampled vector index) and their NEXT_TURN session neighbours, with everything the fusion needs
// params: namespace, ns_token, lucene_query, terms, embedding, lexical_k, dense_k, oversample, exact_limit, df_cap
// returns: id, text, lexical_text, lexical_terms, source_ids, is_cue, is_smalltalk, prev_id, next_id, dense, via_lexical, via_dense, n_units, avg_length, dfs, dense_mode
// mode: read
CALL {
  MATCH (s:Event {namespace: $namespace})
  WHERE s.lexical_length IS NOT NULL
  RETURN count(s) AS n_units, coalesce(avg(s.lexical_length), 0.0) AS avg_length
}
CALL {
  UNWIND $terms AS term
  CALL {
    WITH term
    CALL db.index.fulltext.queryNodes('unit_lexical_event',
         '+ns_token:' + $ns_token + ' +lexical_terms:' + term, {limit: $df_cap}) YIELD node
    RETURN count(node) AS df
  }
  RETURN collect([term, df]) AS dfs
}
CALL {
  CALL db.index.fulltext.queryNodes('unit_lexical_event', $lucene_query, {limit: $lexical_k})
       YIELD node, score
  WITH node WHERE node.namespace = $namespace
  RETURN collect(node) AS lexical_nodes
}
CALL {
  WITH n_units
  WITH n_units WHERE n_units > $exact_limit
  CALL db.index.vector.queryNodes('event_embedding', $oversample, $embedding) YIELD node, score
  WITH node, score WHERE node.namespace = $namespace
  WITH node ORDER BY score DESC LIMIT $dense_k
  RETURN collect(node) AS ann_nodes
}
CALL {
  WITH n_units, ann_nodes
  WITH n_units, ann_nodes WHERE n_units <= $exact_limit OR size(ann_nodes) < $dense_k
  MATCH (u:Event {namespace: $namespace})
  WHERE u.embedding IS NOT NULL AND size(u.embedding) = size($embedding)
    AND all(x IN u.embedding WHERE -1.0e300 < x < 1.0e300)
  WITH u, vector.similarity.cosine(u.embedding, $embedding) AS sim
  WITH u ORDER BY sim DESC, u.id LIMIT $dense_k
  RETURN collect(u) AS exact_nodes
}
WITH n_units, avg_length, dfs, lexical_nodes,
     CASE WHEN size(exact_nodes) > 0 OR n_units <= $exact_limit THEN exact_nodes ELSE ann_nodes END AS dense_nodes,
     CASE WHEN n_units <= $exact_limit THEN 'exact' WHEN size(ann_nodes) < $dense_k THEN 'exact_fallback' ELSE 'vector_index' END AS dense_mode
UNWIND lexical_nodes + dense_nodes AS c
WITH DISTINCT c, n_units, avg_length, dfs, dense_mode, lexical_nodes, dense_nodes
OPTIONAL MATCH (p:Event {namespace: $namespace})-[:NEXT_TURN]->(c)
OPTIONAL MATCH (c)-[:NEXT_TURN]->(q:Event {namespace: $namespace})
WITH n_units, avg_length, dfs, dense_mode, lexical_nodes, dense_nodes,
     collect(DISTINCT c) AS cands, collect(DISTINCT p) + collect(DISTINCT q) AS around
UNWIND cands + [x IN around WHERE NOT x IN cands] AS u
WITH DISTINCT u, n_units, avg_length, dfs, dense_mode, lexical_nodes, dense_nodes
RETURN u.id AS id, u.text AS text, u.lexical_text AS lexical_text, u.lexical_terms AS lexical_terms,
       coalesce(u.source_ids, []) AS source_ids, coalesce(u.is_cue, false) AS is_cue,
       coalesce(u.is_smalltalk, false) AS is_smalltalk,
       head([(p:Event {namespace: $namespace})-[:NEXT_TURN]->(u) | p.id]) AS prev_id,
       head([(u)-[:NEXT_TURN]->(q:Event {namespace: $namespace}) | q.id]) AS next_id,
       CASE WHEN u.embedding IS NOT NULL AND size(u.embedding) = size($embedding)
                 AND all(x IN u.embedding WHERE -1.0e300 < x < 1.0e300)
            THEN 2 * vector.similarity.cosine(u.embedding, $embedding) - 1 END AS dense,
       u IN lexical_nodes AS via_lexical, u IN dense_nodes AS via_dense,
       n_units, avg_length, dfs, dense_mode
ORDER BY id

// description: one hybrid-retrieval round over the units (Event: state memory, Episode: associative memory) of one namespace: per-namespace BM25 statistics (N, avgdl -- read only when $stats is null, else the vector cache's [N, avgdl] at its token -- and df per query term not in $known_terms, whose df the cache holds) and the vector-cache token (the unit version of the namespace: how many write locks its conversations have -- ConversationLock for Event, Timeline for Episode -- and the sum of their unit_version, which every transaction that writes a unit vector raises; a read of the namespace's few lock nodes, whatever its number of units), the lexical candidates: with $lexical_cached the given $lexical_ids (the vector cache's exact per-namespace BM25 top $lexical_k, already in the window; the full-text index is not queried), else the full-text index's top $lexical_k for $lucene_query (namespace token required; ranked by Lucene with index-wide statistics); with $cached the dense candidates are the given $dense_ids / $dense_sims (the in-process vector cache scored them; no stored vector is read and dense is null for the other units), else dense candidates (exact scan when the namespace is small or the vector index is starved, else the oversampled vector index); a unit's dense score is the best cosine of its window vector (embedding) and the vectors of its passages (passage_embeddings: a long message's passages, flat, passage i the slice [i*d, (i+1)*d), as many as passage_spans names; units without them, also those written before passages existed, score by their window vector alone) in the exact scan and in the dense column of every unit, the index of the passage that gave it in the passage column (-1: the window vector; null with $cached, whose engine fills it from the cache), while the vector-index path picks and scores its candidates by the window vector alone (the index holds one vector per unit), the session neighbours of every candidate (prev_id / next_id, the NEXT_TURN edge's ends) and the unit count of every speaker among them not in $known_speakers (the cache holds the others'); each unit is a list in the column order of graphmem.retrieval.engine.UNIT_COLUMNS (lists, not maps, and the time as text: the answer is read faster); $guard skips stored vectors cosine cannot score (wrong width, not finite, all zero) element by element, the slow path run only after the fast one met such a vector; $since / $until (epoch microseconds of the UTC instant, or null: open; occurred_at compared as its instant, whatever its offset) keep only the units with since <= occurred_at < until as lexical, dense (index, scan) and neighbour candidates, before each top-k (the BM25 statistics stay the namespace's; the cache's $dense_ids are already in the window); archived units (archived_at set by retention, graphmem.agent.retention) are no lexical, dense (cache ids, index, scan) or neighbour candidates unless $include_archived: an archived unit carries the namespace's archived token ($archived_token) instead of $ns_token, so $lucene_query (which requires $ns_token, or either token with $include_archived) never returns it, and every other side filters archived_at; the BM25 statistics (N, avgdl, df: counted over both tokens) and speaker counts stay the namespace's, archived units included
// params: namespace, ns_token, lucene_query, terms, known_terms, known_speakers, stats, embedding, lexical_k, dense_k, oversample, exact_limit, df_cap, guard, cached, dense_ids, dense_sims, since, until, lexical_cached, lexical_ids, include_archived, archived_token
// returns: n_units, avg_length, n_locks, unit_version, dfs, dense_mode, units, speakers
// mode: read
// values: plain
// template: Unit = Event | Episode; Lock = ConversationLock | Timeline
CALL () {
  MATCH (c:{{Lock}} {namespace: $namespace})
  RETURN count(c) AS n_locks, sum(coalesce(c.unit_version, 0)) AS unit_version
}
CALL () {
  // the namespace's units are not read when $stats is given (a filter on the parameter first:
  // with a null seek value the planner still sought the (namespace, lexical_length) index)
  WITH 1 AS one WHERE $stats IS NULL
  MATCH (s:{{Unit}} {namespace: $namespace})
  WITH count(s.lexical_length) AS counted, avg(s.lexical_length) AS mean
  RETURN coalesce($stats[0], counted) AS n_units, coalesce($stats[1], mean, 0.0) AS avg_length
}
CALL () {
  UNWIND [t IN $terms WHERE NOT t IN $known_terms] AS term
  CALL (term) {
    CALL db.index.fulltext.queryNodes('unit_lexical_{{unit}}',
         '+(ns_token:' + $ns_token + ' ns_token:' + $archived_token + ') +lexical_terms:' + term,
         {limit: $df_cap}) YIELD node
    RETURN count(node) AS df
  }
  RETURN collect([term, df]) AS dfs
}
CALL () {
  CALL () {
    // the full-text index is not queried when the cache picked the lexical candidates
    WITH 1 AS one WHERE NOT $lexical_cached
    CALL db.index.fulltext.queryNodes('unit_lexical_{{unit}}', $lucene_query, {limit: $lexical_k})
         YIELD node
    WHERE node.namespace = $namespace AND ($include_archived OR node.archived_at IS NULL)
      AND ($since IS NULL OR node.occurred_at.epochMillis * 1000 + node.occurred_at.microsecond % 1000 >= $since)
      AND ($until IS NULL OR node.occurred_at.epochMillis * 1000 + node.occurred_at.microsecond % 1000 < $until)
    RETURN node
    UNION ALL
    WITH 1 AS one WHERE $lexical_cached
    UNWIND $lexical_ids AS lid
    MATCH (node:{{Unit}} {id: lid})
    WHERE node.namespace = $namespace AND ($include_archived OR node.archived_at IS NULL)
    RETURN node
  }
  RETURN collect(node) AS lexical_nodes
}
CALL () {
  WITH 1 AS one WHERE $cached
  UNWIND $dense_ids AS did
  MATCH (u:{{Unit}} {id: did})
  WHERE u.namespace = $namespace AND ($include_archived OR u.archived_at IS NULL)
  RETURN collect(u) AS cached_nodes
}
CALL (n_units) {
  WITH n_units WHERE NOT $cached AND n_units > $exact_limit
  CALL db.index.vector.queryNodes('{{unit}}_embedding', $oversample, $embedding) YIELD node, score
  WITH node, score WHERE node.namespace = $namespace
    AND ($include_archived OR node.archived_at IS NULL)
    AND ($since IS NULL OR node.occurred_at.epochMillis * 1000 + node.occurred_at.microsecond % 1000 >= $since)
    AND ($until IS NULL OR node.occurred_at.epochMillis * 1000 + node.occurred_at.microsecond % 1000 < $until)
  WITH node, score ORDER BY score DESC LIMIT $dense_k
  RETURN collect(node) AS ann_nodes, collect(2 * score - 1) AS ann_sims, collect(-1) AS ann_passages
}
CALL (n_units, ann_nodes) {
  WITH n_units, ann_nodes WHERE NOT $cached AND (n_units <= $exact_limit OR size(ann_nodes) < $dense_k)
  MATCH (u:{{Unit}} {namespace: CASE WHEN $cached THEN null ELSE $namespace END})
  WHERE size(u.embedding) = size($embedding)
    AND ($include_archived OR u.archived_at IS NULL)
    AND ($since IS NULL OR u.occurred_at.epochMillis * 1000 + u.occurred_at.microsecond % 1000 >= $since)
    AND ($until IS NULL OR u.occurred_at.epochMillis * 1000 + u.occurred_at.microsecond % 1000 < $until)
    AND (NOT $guard OR (all(x IN u.embedding WHERE -1.0e300 < x < 1.0e300)
                        AND any(x IN u.embedding WHERE x <> 0.0)))
  // the best of the window vector and the unit's passages (the window wins ties); with $guard a
  // unit's passages are all skipped when one cannot be scored
  WITH u, size($embedding) AS d, coalesce(u.passage_embeddings, []) AS pe,
       size(coalesce(u.passage_spans, [])) / 2 AS n_pass
  WITH u, d, pe, CASE WHEN size(pe) = n_pass * d
            AND (NOT $guard OR (all(y IN pe WHERE -1.0e300 < y < 1.0e300)
                                AND all(p IN range(0, n_pass - 1)
                                        WHERE any(y IN pe[p * d..(p + 1) * d] WHERE y <> 0.0))))
       THEN n_pass ELSE 0 END AS n_ok
  WITH u, reduce(best = [vector.similarity.cosine(u.embedding, $embedding), -1],
                 x IN [p IN range(0, n_ok - 1) |
                       [vector.similarity.cosine(pe[p * d..(p + 1) * d], $embedding), p]]
                 | CASE WHEN x[0] > best[0] THEN x ELSE best END) AS best
  WITH u, best[0] AS sim, best[1] AS passage
  ORDER BY sim DESC, u.id LIMIT $dense_k
  RETURN collect(u) AS exact_nodes, collect(2 * sim - 1) AS exact_sims,
         collect(passage) AS exact_passages
}
WITH n_units, avg_length, n_locks, unit_version, dfs, lexical_nodes,
     CASE WHEN $cached THEN cached_nodes WHEN n_units <= $exact_limit OR size(ann_nodes) < $dense_k THEN exact_nodes ELSE ann_nodes END AS dense_nodes,
     CASE WHEN $cached THEN $dense_sims WHEN n_units <= $exact_limit OR size(ann_nodes) < $dense_k THEN exact_sims ELSE ann_sims END AS dense_sims,
     CASE WHEN $cached THEN [] WHEN n_units <= $exact_limit OR size(ann_nodes) < $dense_k THEN exact_passages ELSE ann_passages END AS dense_passages,
     CASE WHEN $cached THEN 'cache' WHEN n_units <= $exact_limit THEN 'exact' WHEN size(ann_nodes) < $dense_k THEN 'exact_fallback' ELSE 'vector_index' END AS dense_mode
WITH n_units, avg_length, n_locks, unit_version, dfs, dense_mode, lexical_nodes, dense_nodes, dense_sims,
     dense_passages, [x IN lexical_nodes WHERE NOT x IN dense_nodes] AS lexical_only
WITH n_units, avg_length, n_locks, unit_version, dfs, dense_mode, lexical_nodes, dense_nodes, dense_sims,
     dense_passages, lexical_only, [s IN dense_nodes + lexical_only | s.id] AS seed_ids
CALL (seed_ids, dense_nodes, lexical_only) {
  UNWIND dense_nodes + lexical_only AS s
  UNWIND [s.prev_id, s.next_id] AS nid
  WITH DISTINCT nid WHERE nid IS NOT NULL AND NOT nid IN seed_ids
  MATCH (x:{{Unit}} {id: nid})
  WHERE x.namespace = $namespace
    AND ($include_archived OR x.archived_at IS NULL)
    AND ($since IS NULL OR x.occurred_at.epochMillis * 1000 + x.occurred_at.microsecond % 1000 >= $since)
    AND ($until IS NULL OR x.occurred_at.epochMillis * 1000 + x.occurred_at.microsecond % 1000 < $until)
  RETURN collect(x) AS around
}
WITH n_units, avg_length, n_locks, unit_version, dfs, dense_mode, lexical_nodes, dense_sims,
     dense_passages, dense_nodes + lexical_only + around AS nodes, size(dense_nodes) AS n_dense
CALL (nodes, n_dense, dense_sims, dense_passages) {
  // per unit of S its dense score (cosine in [-1, 1], null when unusable) and the passage that gave it
  UNWIND range(0, size(nodes) - 1) AS i
  WITH i, nodes[i] AS u, size($embedding) AS d
  WITH i, u, d, coalesce(u.passage_embeddings, []) AS pe,
       size(coalesce(u.passage_spans, [])) / 2 AS n_pass,
       i >= n_dense AND NOT $cached AND size(u.embedding) = size($embedding)
         AND (NOT $guard OR (all(x IN u.embedding WHERE -1.0e300 < x < 1.0e300)
                             AND any(x IN u.embedding WHERE x <> 0.0))) AS scan
  WITH i, u, d, pe, scan, CASE WHEN scan THEN n_pass ELSE 0 END AS n_pass
  WITH i, u, d, pe, scan, CASE WHEN size(pe) = n_pass * d
            AND (NOT $guard OR (all(y IN pe WHERE -1.0e300 < y < 1.0e300)
                                AND all(p IN range(0, n_pass - 1)
                                        WHERE any(y IN pe[p * d..(p + 1) * d] WHERE y <> 0.0))))
       THEN n_pass ELSE 0 END AS n_ok
  WITH i, CASE WHEN i < n_dense THEN [dense_sims[i], dense_passages[i]]
               WHEN scan THEN reduce(best = [vector.similarity.cosine(u.embedding, $embedding), -1],
                          x IN [p IN range(0, n_ok - 1) |
                                [vector.similarity.cosine(pe[p * d..(p + 1) * d], $embedding), p]]
                          | CASE WHEN x[0] > best[0] THEN x ELSE best END)
               ELSE [null, null] END AS best
  ORDER BY i
  RETURN collect([CASE WHEN best[0] IS NULL THEN null WHEN i < n_dense THEN best[0]
                       ELSE 2 * best[0] - 1 END, best[1]]) AS scored
}
CALL (nodes) {
  UNWIND nodes AS u
  WITH DISTINCT u.speaker AS speaker WHERE speaker IS NOT NULL AND NOT speaker IN $known_speakers
  CALL (speaker) {
    MATCH (v:{{Unit}} {namespace: $namespace, speaker: speaker})
    RETURN count(v) AS units
  }
  RETURN collect([speaker, units]) AS speakers
}
RETURN n_units, avg_length, n_locks, unit_version, dfs, dense_mode, speakers,
       [i IN range(0, size(nodes) - 1) | [
         nodes[i].id, nodes[i].text, nodes[i].lexical_terms,
         coalesce(nodes[i].source_ids, CASE WHEN nodes[i].source_id IS NULL THEN []
                                       ELSE [nodes[i].source_id] END),
         nodes[i].speaker, coalesce(nodes[i].is_cue, false),
         coalesce(nodes[i].conversation_id, nodes[i].conversation),
         toString(nodes[i].occurred_at), nodes[i].topic_id, coalesce(nodes[i].is_smalltalk, false),
         nodes[i].prev_id, nodes[i].next_id, nodes[i] IN lexical_nodes, i < n_dense,
         scored[i][0], scored[i][1], coalesce(nodes[i].passage_spans, [])
       ]] AS units

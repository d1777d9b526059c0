// description: the stored vectors of the given units of one namespace (index seek on id), for the in-process vector cache: the window vector (embedding) and the flat passage vectors of a long message (passage_embeddings: passages x d floats, [] when the unit has none -- units written before passages existed too; passage_count: the passages its passage_spans name, so a list of another width is not taken for passages), with what the round query counts of each unit (its lexical_terms, lexical_length and speaker: the cache then holds the namespace's term and speaker counts and BM25 statistics)
// params: namespace, ids
// returns: id, stamp, embedding, passage_embeddings, passage_count, lexical_terms, lexical_length, speaker
// mode: read
// values: plain
// template: Unit = Event | Episode
UNWIND $ids AS uid
MATCH (u:{{Unit}} {id: uid})
WHERE u.namespace = $namespace
RETURN u.id AS id, coalesce(u.vector_stamp, 0) AS stamp, u.embedding AS embedding,
       coalesce(u.passage_embeddings, []) AS passage_embeddings,
       size(coalesce(u.passage_spans, [])) / 2 AS passage_count,
       u.lexical_terms AS lexical_terms, u.lexical_length AS lexical_length, u.speaker AS speaker

// V0050 retrieval engine (graphmem.retrieval): the lexical and dense indexes of the units that
// HybridSearch ranks -- state memory Event and associative memory Episode.
// - unit_lexical_<label>: full-text index on the analyzed terms (space-joined, written by
//   graphmem.retrieval.text.analyze) and the namespace token. The `whitespace` analyzer splits on
//   spaces only, so Lucene's tokens are exactly the Python analyzer's; every query requires
//   +ns_token:<token> so a small tenant is never starved by other tenants' matches. Lucene's own
//   scores (global IDF) only pick candidates; BM25 is recomputed from per-namespace statistics.
// - the dense side uses the baseline's vector indexes event_embedding / episode_embedding: a unit's
//   `embedding` IS the vector of its window text (previous + this + next turn of the session).
// - range indexes on (namespace, lexical_length) so the per-namespace N / avgdl aggregate reads
//   only the namespace's units.
// Idempotent (IF NOT EXISTS).
CREATE FULLTEXT INDEX unit_lexical_event IF NOT EXISTS FOR (n:Event) ON EACH [n.lexical_terms, n.ns_token]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', `fulltext.eventually_consistent`: false}};
CREATE FULLTEXT INDEX unit_lexical_episode IF NOT EXISTS FOR (n:Episode) ON EACH [n.lexical_terms, n.ns_token]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', `fulltext.eventually_consistent`: false}};
CREATE INDEX event_namespace_lexical_length IF NOT EXISTS FOR (n:Event) ON (n.namespace, n.lexical_length);
CREATE INDEX episode_namespace_lexical_length IF NOT EXISTS FOR (n:Episode) ON (n.namespace, n.lexical_length);

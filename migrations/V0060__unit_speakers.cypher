// V0060 retrieval engine, entity step: the unit count of a speaker in a namespace (n_s of
// graphmem.retrieval.fusion's specificity w(s) = ln(N / n_s) / ln N) is one index seek per speaker.
// Idempotent (IF NOT EXISTS).
CREATE INDEX event_namespace_speaker IF NOT EXISTS FOR (n:Event) ON (n.namespace, n.speaker);
CREATE INDEX episode_namespace_speaker IF NOT EXISTS FOR (n:Episode) ON (n.namespace, n.speaker);

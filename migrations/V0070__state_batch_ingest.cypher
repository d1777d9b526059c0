// V0070 state memory batch ingest: range indexes behind the bounded lookups of one batch
// (graphmem.state.store.StateStore.write_batch) and the capped per-topic reads.
// - event_topic_sort_key: a new event's stored chain predecessor / successor on its topic
//   (largest sort_key below, smallest above) and a topic's timeline in chain order;
// - event_session_seq: a new turn's stored session neighbours (conversation order = seq);
// - state_topic_valid_from: the latest stored chain state before a late assertion, and a
//   topic's states in time order.
// Idempotent (IF NOT EXISTS).
CREATE INDEX event_topic_sort_key IF NOT EXISTS FOR (n:Event) ON (n.topic_id, n.sort_key);
CREATE INDEX event_session_seq IF NOT EXISTS FOR (n:Event) ON (n.namespace, n.conversation, n.session, n.seq);
CREATE INDEX state_topic_valid_from IF NOT EXISTS FOR (n:State) ON (n.topic_id, n.valid_from);

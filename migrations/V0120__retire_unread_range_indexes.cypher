// V0120 state memory write cost: range indexes no query reads. Events are found by id, by
// (topic_id, sort_key) (event_topic_sort_key, V0070) and by (namespace, conversation, session,
// seq) (event_session_seq, V0070); states by (topic_id, valid_from) (state_topic_valid_from,
// V0070). The single-property indexes of V0030 on Event.sort_key, Event.occurred_at and
// State.valid_from span every namespace, no plan seeks them, and every event or state written
// paid an insert into each.
DROP INDEX event_sort_key IF EXISTS;
DROP INDEX event_occurred_at IF EXISTS;
DROP INDEX state_valid_from IF EXISTS;

// V0090 state memory: one ConversationLock node per conversation, the write lock every batch of
// the conversation takes first (graphmem.state.store.StateStore.write_batch), so concurrent
// batches of one conversation serialise and none misses the session neighbour another batch
// stores at the same time (NEXT_TURN across batch borders).
CREATE CONSTRAINT conversation_lock_id IF NOT EXISTS FOR (n:ConversationLock) REQUIRE n.id IS UNIQUE;
CREATE INDEX conversation_lock_namespace IF NOT EXISTS FOR (n:ConversationLock) ON (n.namespace);

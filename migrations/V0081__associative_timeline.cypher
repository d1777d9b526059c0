// V0081 associative memory: one Timeline node per conversation, the write lock every batch of the
// conversation takes first (concurrent appends serialise and never fork NEXT_EPISODE / NEXT_TURN),
// and the conversation's episodes by position (the tails a batch attaches to are index seeks).
CREATE CONSTRAINT timeline_id IF NOT EXISTS FOR (n:Timeline) REQUIRE n.id IS UNIQUE;
CREATE INDEX timeline_namespace IF NOT EXISTS FOR (n:Timeline) ON (n.namespace);
CREATE INDEX episode_conversation_position IF NOT EXISTS FOR (n:Episode) ON (n.namespace, n.conversation_id, n.position);

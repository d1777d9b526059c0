// description: take the write lock of a conversation's timeline (MERGE its Timeline node; every batch of the conversation locks it first, so concurrent appends to one conversation serialise and none links to a tail another batch has just extended; its unit_version -- random at creation -- is raised, as every batch writes episode vectors: the token of the retrieval engine's vector cache); created = 1 when the node is new
// params: namespace, id, conversation_id
// returns: created
// mode: write
MERGE (t:Timeline {id: $id})
ON CREATE SET t.namespace = $namespace, t.conversation_id = $conversation_id,
              t.created_at = datetime(), t._new = true
SET t.batches = coalesce(t.batches, 0) + 1,
    t.unit_version = coalesce(t.unit_version, toInteger(rand() * 1099511627776)) + 1
WITH t, coalesce(t._new, false) AS created
REMOVE t._new
RETURN CASE WHEN created THEN 1 ELSE 0 END AS created

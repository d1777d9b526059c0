// description: delete the Person nodes of one conversation with their MENTIONS edges (before the conversation's people are written again, in the same transaction); returns how many were deleted
// params: namespace, conversation
// returns: deleted
// mode: write
MATCH (p:Person {namespace: $namespace, conversation_id: $conversation})
DETACH DELETE p
RETURN count(*) AS deleted

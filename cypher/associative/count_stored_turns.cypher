// description: how many of the given turns (source ids of one conversation) have their Episode stored in the namespace: what an ingest committed, asked after an interruption
// params: namespace, conversation, source_ids
// returns: stored
// mode: read
MATCH (e:Episode {namespace: $namespace})
WHERE e.conversation_id = $conversation AND e.source_id IN $source_ids
RETURN count(e) AS stored

// description: how many of the given turns (source ids of one conversation) have their Event stored in the namespace: what an ingest committed, asked after an interruption
// params: namespace, conversation, source_ids
// returns: stored
// mode: read
MATCH (e:Event {namespace: $namespace, conversation: $conversation})
WHERE any(s IN e.source_ids WHERE s IN $source_ids)
RETURN count(e) AS stored

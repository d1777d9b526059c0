// description: the stored events of one conversation with their topic and vector, the candidates of new events' RELATED_EVENT partners (scored exactly in process by graphmem.state.related.stored_matches; no vector index: its global top list, filtered afterwards, would make the edges depend on other namespaces' events)
// params: namespace, conversation
// returns: id, topic_id, embedding
// mode: read
// values: plain
MATCH (e:Event {namespace: $namespace})
WHERE e.conversation = $conversation
RETURN e.id AS id, e.topic_id AS topic_id, e.embedding AS embedding

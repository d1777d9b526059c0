// description: every stored message (Episode) of one conversation in conversation order (time, then arrival position) with what a rebuild needs to add it again (the message text: the episode's text without the "<speaker>: " prefix it is stored with, graphmem.associative.models.EpisodeInput.content; speaker, session, time, arrival position; episodes keep no serialised form: message_json null); for graphmem.agent.forget
// params: namespace, conversation
// returns: source_id, text, speaker, session, occurred_at, seq, message_json
// mode: read
MATCH (e:Episode)
WHERE e.namespace = $namespace AND e.conversation_id = $conversation
RETURN e.source_id AS source_id,
       CASE WHEN e.text STARTS WITH e.speaker + ': ' THEN substring(e.text, size(e.speaker) + 2)
            ELSE e.text END AS text, e.speaker AS speaker, e.session AS session,
       e.occurred_at AS occurred_at, e.position AS seq, null AS message_json
ORDER BY e.occurred_at, e.position

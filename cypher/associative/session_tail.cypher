// description: the latest stored Episode of one session of a conversation positioned before a given position, with the text of its own predecessor (the window an incremental add refreshes)
// params: namespace, conversation_id, session, before
// returns: id, speaker, text, session, occurred_at, prev_text
// mode: read
MATCH (e:Episode)
WHERE e.namespace = $namespace AND e.conversation_id = $conversation_id AND e.session = $session
  AND e.position < $before
WITH e ORDER BY e.position DESC LIMIT 1
OPTIONAL MATCH (p:Episode {id: e.prev_id})
WHERE p.namespace = $namespace
RETURN e.id AS id, e.speaker AS speaker, e.text AS text, e.session AS session,
       e.occurred_at AS occurred_at,
       CASE WHEN p IS NULL THEN null
            WHEN p.text STARTS WITH p.speaker + ': ' THEN substring(p.text, size(p.speaker) + 2)
            ELSE p.text END AS prev_text

// description: under the timeline lock, the stored episodes a batch (positions $first..$last) sits between: on the conversation's NEXT_EPISODE timeline the latest episode before it and the earliest after it, in $first_session the latest before it, in $last_session the earliest after it (NEXT_TURN neighbours, with their texts for the window), and whether the conversation has any stored episode; index seeks on (namespace, conversation_id, position)
// params: namespace, conversation_id, first, last, first_session, last_session
// returns: timeline_before, timeline_after, session_before, session_after, stored
// mode: read
OPTIONAL CALL () {
  MATCH (e:Episode)
  USING INDEX SEEK e:Episode(namespace, conversation_id, position)
  WHERE e.namespace = $namespace AND e.conversation_id = $conversation_id AND e.position < $first
  RETURN e.id AS timeline_before ORDER BY e.position DESC LIMIT 1
}
OPTIONAL CALL () {
  MATCH (e:Episode)
  USING INDEX SEEK e:Episode(namespace, conversation_id, position)
  WHERE e.namespace = $namespace AND e.conversation_id = $conversation_id AND e.position > $last
  RETURN e.id AS timeline_after ORDER BY e.position ASC LIMIT 1
}
OPTIONAL CALL () {
  MATCH (e:Episode)
  USING INDEX SEEK e:Episode(namespace, conversation_id, position)
  WHERE e.namespace = $namespace AND e.conversation_id = $conversation_id AND e.position < $first
    AND e.session = $first_session
  WITH e ORDER BY e.position DESC LIMIT 1
  OPTIONAL MATCH (p:Episode {id: e.prev_id})
  USING INDEX p:Episode(id)
  WHERE p.namespace = $namespace
  RETURN {id: e.id, speaker: e.speaker, text: e.text, session: e.session,
          occurred_at: e.occurred_at, other_text: p.text, other_speaker: p.speaker} AS session_before
}
OPTIONAL CALL () {
  MATCH (e:Episode)
  USING INDEX SEEK e:Episode(namespace, conversation_id, position)
  WHERE e.namespace = $namespace AND e.conversation_id = $conversation_id AND e.position > $last
    AND e.session = $last_session
  WITH e ORDER BY e.position ASC LIMIT 1
  OPTIONAL MATCH (n:Episode {id: e.next_id})
  USING INDEX n:Episode(id)
  WHERE n.namespace = $namespace
  RETURN {id: e.id, speaker: e.speaker, text: e.text, session: e.session,
          occurred_at: e.occurred_at, other_text: n.text, other_speaker: n.speaker} AS session_after
}
RETURN timeline_before, timeline_after, session_before, session_after,
       EXISTS { MATCH (x:Episode) WHERE x.namespace = $namespace
                AND x.conversation_id = $conversation_id } AS stored

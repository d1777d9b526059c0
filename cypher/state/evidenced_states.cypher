// description: the validity of recalled events: per given event the state it is evidence of (EVIDENCED_BY) -- its topic's current state when it evidences that one, else the latest by valid_from -- with the state's topic, whether it is current, its validity interval and conflict flag; events that evidence no state are absent
// params: namespace, event_ids
// returns: event_id, state_id, topic_id, current, valid_from, valid_to, conflict
// mode: read
UNWIND $event_ids AS eid
MATCH (e:Event {id: eid})
USING INDEX e:Event(id)
WHERE e.namespace = $namespace
MATCH (s:State)-[:EVIDENCED_BY]->(e)
WHERE s.namespace = $namespace
WITH e, s, EXISTS { (:Topic {namespace: $namespace})-[:CURRENT_STATE]->(s) } AS current
ORDER BY current DESC, s.valid_from DESC, s.id
WITH e, collect({state: s, current: current})[0] AS best
WITH e, best.state AS s, best.current AS current
RETURN e.id AS event_id, s.id AS state_id, s.topic_id AS topic_id, current,
       s.valid_from AS valid_from, s.valid_to AS valid_to, coalesce(s.conflict, false) AS conflict

// description: what inserting a batch needs from the stored graph, read under the topic locks: each new event's stored chain neighbours on its topic (the stored events with the largest sort_key below and the smallest above it: index seeks on topic_id, sort_key), and for each late assertion the latest stored non-conflict chain state of its topic not later than it other than the current one (index seek on topic_id, valid_from), with its SEMANTIC_NEXT successor
// params: namespace, events, priors
// returns: chain, priors
// mode: read
CALL () {
  UNWIND $events AS row
  CALL (row) {
    OPTIONAL MATCH (p:Event)
    USING INDEX SEEK p:Event(topic_id, sort_key)
    WHERE p.topic_id = row.topic_id AND p.sort_key < row.sort_key AND p.namespace = $namespace
    WITH p ORDER BY p.topic_id DESC, p.sort_key DESC LIMIT 1
    RETURN p.id AS predecessor
  }
  CALL (row) {
    OPTIONAL MATCH (s:Event)
    USING INDEX SEEK s:Event(topic_id, sort_key)
    WHERE s.topic_id = row.topic_id AND s.sort_key > row.sort_key AND s.namespace = $namespace
    WITH s ORDER BY s.topic_id, s.sort_key LIMIT 1
    RETURN s.id AS successor
  }
  RETURN collect({id: row.id, predecessor: predecessor, successor: successor}) AS chain
}
CALL () {
  UNWIND $priors AS row
  CALL (row) {
    OPTIONAL MATCH (p:State)
    USING INDEX SEEK p:State(topic_id, valid_from)
    WHERE p.topic_id = row.topic_id AND p.valid_from <= row.valid_from AND p.namespace = $namespace
      AND NOT coalesce(p.conflict, false)
      AND NOT EXISTS { (p)<-[:CURRENT_STATE]-(t) WHERE t.namespace = $namespace }
      AND (EXISTS { (p)<-[:INITIAL_STATE]-(t) WHERE t.namespace = $namespace }
           OR EXISTS { (p)<-[:SEMANTIC_NEXT]-(q) WHERE q.namespace = $namespace })
    WITH p ORDER BY p.topic_id DESC, p.valid_from DESC, p.id DESC LIMIT 1
    OPTIONAL MATCH (p)-[:SEMANTIC_NEXT]->(nx)
    WHERE nx.namespace = $namespace
    RETURN CASE WHEN p IS NULL THEN null ELSE p {
      .id, .value, .embedding, .mutable, .valid_from, .valid_to, .session,
      conflict: coalesce(p.conflict, false), next_id: nx.id, next_valid_from: nx.valid_from} END AS prior
  }
  RETURN collect({event_id: row.event_id, prior: prior}) AS priors
}
RETURN chain, priors

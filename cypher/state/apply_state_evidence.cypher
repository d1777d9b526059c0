// description: evidence-based state update of one topic (EMIR2 SEMG): initial, confirm (evidence edge), change (new State, CURRENT_STATE moved, old closed with valid_to), history (late evidence inserted before the current state), conflict (kept side by side, flagged); one statement under the topic lock. Order is event time, ties in arrival order: a later update on the same day or in the same session is a change; a conflict is an immutable fact contradicted, or two sessions asserting different values for the very same instant
// params: namespace, topic_id, event_id, state, confirm_threshold
// returns: relation, state_id
// mode: write
MATCH (t:Topic {id: $topic_id})
WHERE t.namespace = $namespace
SET t.chain_version = coalesce(t.chain_version, 0) + 1
WITH t
MATCH (ev:Event {id: $event_id})
WHERE ev.namespace = $namespace
  AND NOT EXISTS { (:State {namespace: $namespace})-[:EVIDENCED_BY]->(ev) }
OPTIONAL MATCH (t)-[:CURRENT_STATE]->(cur:State {namespace: $namespace})
WITH t, ev, cur, $state.valid_from AS vf
WITH t, ev, cur, vf,
  CASE
    WHEN cur IS NULL THEN 'initial'
    WHEN cur.value = $state.value THEN 'confirm'
    // a current state whose stored vector cosine cannot score (missing, wrong width, NaN or
    // infinity, all zeros) is never confirmed by similarity, and never fails the statement
    WHEN CASE
      WHEN cur.embedding IS NULL OR size(cur.embedding) <> size($state.embedding) THEN false
      WHEN NOT all(x IN cur.embedding WHERE abs(x) <= 1.7976931348623157e308) THEN false
      WHEN NOT any(x IN cur.embedding WHERE x <> 0.0) THEN false
      ELSE 2 * vector.similarity.cosine(cur.embedding, $state.embedding) - 1 >= $confirm_threshold
    END THEN 'confirm'
    WHEN NOT $state.mutable OR NOT coalesce(cur.mutable, true) THEN 'conflict'
    WHEN vf = cur.valid_from AND cur.session IS NOT NULL AND cur.session <> ev.session THEN 'conflict'
    WHEN vf < cur.valid_from THEN 'history'
    ELSE 'change'
  END AS relation
CALL {
  WITH t, ev, cur, relation
  WITH t, ev, cur, relation WHERE relation = 'confirm'
  MERGE (cur)-[:EVIDENCED_BY]->(ev)
  SET cur.evidence_count = coalesce(cur.evidence_count, 1) + 1
}
CALL {
  WITH t, ev, relation, vf
  WITH t, ev, relation, vf WHERE relation <> 'confirm'
  MERGE (s:State {id: $state.id})
  ON CREATE SET s.namespace = $namespace, s.conversation = $state.conversation,
                s.content = $state.content, s.value = $state.value, s.condition = $state.condition,
                s.subject = $state.subject, s.mutable = $state.mutable, s.valid_from = vf,
                s.embedding = $state.embedding, s.conflict = (relation = 'conflict'),
                s.evidence_count = 1, s.topic_id = t.id, s.created_at = datetime(),
                s.session = ev.session
  MERGE (s)-[:SUPPORTED_BY]->(t)
  MERGE (s)-[:EVIDENCED_BY]->(ev)
}
CALL {
  WITH t, relation
  WITH t, relation WHERE relation = 'initial'
  MATCH (s:State {id: $state.id})
  MERGE (t)-[:INITIAL_STATE]->(s)
  MERGE (t)-[:CURRENT_STATE]->(s)
}
CALL {
  WITH t, cur, relation, vf
  WITH t, cur, relation, vf WHERE relation = 'change'
  MATCH (s:State {id: $state.id})
  MATCH (t)-[old:CURRENT_STATE]->(cur)
  DELETE old
  SET cur.valid_to = vf
  MERGE (t)-[:CURRENT_STATE]->(s)
  MERGE (cur)-[:SEMANTIC_NEXT]->(s)
}
CALL {
  WITH t, cur, relation
  WITH t, cur, relation WHERE relation = 'conflict'
  MATCH (s:State {id: $state.id})
  SET cur.conflict = true
  MERGE (s)-[:CONFLICTS_WITH]->(cur)
}
CALL {
  WITH t, relation, vf
  WITH t, relation, vf WHERE relation = 'history'
  MATCH (s:State {id: $state.id})
  OPTIONAL MATCH (p:State)-[:SUPPORTED_BY]->(t)
  WHERE p.namespace = $namespace AND p <> s AND NOT coalesce(p.conflict, false) AND p.valid_from <= vf
    AND (EXISTS { (t)-[:INITIAL_STATE]->(p) } OR EXISTS { (:State {namespace: $namespace})-[:SEMANTIC_NEXT]->(p) })
  WITH t, s, vf, p ORDER BY p.valid_from DESC LIMIT 1
  OPTIONAL MATCH (p)-[old:SEMANTIC_NEXT]->(nx:State {namespace: $namespace})
  OPTIONAL MATCH (t)-[oldInit:INITIAL_STATE]->(first:State {namespace: $namespace})
  WITH t, s, p, old, nx, oldInit, first,
       CASE WHEN p IS NULL THEN first ELSE nx END AS succ
  FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END |
    DELETE old
    SET p.valid_to = s.valid_from
    MERGE (p)-[:SEMANTIC_NEXT]->(s))
  FOREACH (_ IN CASE WHEN p IS NULL THEN [1] ELSE [] END |
    DELETE oldInit
    MERGE (t)-[:INITIAL_STATE]->(s))
  FOREACH (_ IN CASE WHEN succ IS NULL THEN [] ELSE [1] END |
    SET s.valid_to = succ.valid_from
    MERGE (s)-[:SEMANTIC_NEXT]->(succ))
}
RETURN relation, CASE WHEN relation = 'confirm' THEN cur.id ELSE $state.id END AS state_id

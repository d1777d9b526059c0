// description: delete everything associative memory holds of the given conversations in one statement: their Episodes (with NEXT_TURN, LEADS_TO, DERIVED_FROM, GROUPS edges), Themes and Timelines; then the shared nodes left without support -- SemanticUnits derived from no episode, Tags leading to no content, Cues with no tag -- and, for each cue that lost episodes, its contents counter set to the episodes it still leads to (n_c); a SemanticUnit kept (derived from episodes of other conversations too) takes one of those conversations as its conversation_id; for graphmem.agent.forget
// params: namespace, conversations
// returns: deleted
// mode: write
CALL () {
  MATCH (e:Episode)
  WHERE e.namespace = $namespace AND e.conversation_id IN $conversations
  OPTIONAL MATCH (g:Tag {namespace: $namespace})-[:LEADS_TO]->(e)
  OPTIONAL MATCH (s:SemanticUnit {namespace: $namespace})-[:DERIVED_FROM]->(e)
  WITH collect(DISTINCT e) AS episodes, collect(DISTINCT g) AS tags,
       collect(DISTINCT s) AS units
  RETURN episodes, tags, units
}
CALL (episodes) {
  UNWIND episodes AS e
  DETACH DELETE e
  RETURN count(*) AS n_episodes
}
CALL () {
  MATCH (n:Theme)
  WHERE n.namespace = $namespace AND n.conversation_id IN $conversations
  DETACH DELETE n
  RETURN count(*) AS n_themes
}
CALL () {
  MATCH (n:Timeline)
  WHERE n.namespace = $namespace AND n.conversation_id IN $conversations
  DETACH DELETE n
  RETURN count(*) AS n_timelines
}
CALL (units) {
  UNWIND units AS s
  WITH s WHERE s.namespace = $namespace
  OPTIONAL MATCH (s)-[:DERIVED_FROM]->(left:Episode {namespace: $namespace})
  WITH s, collect(left.conversation_id)[0] AS kept_in
  CALL (s, kept_in) {
    WITH s, kept_in WHERE kept_in IS NULL
    OPTIONAL MATCH (g:Tag {namespace: $namespace})-[:LEADS_TO]->(s)
    WITH s, collect(g) AS unit_tags
    DETACH DELETE s
    RETURN unit_tags
  UNION
    WITH s, kept_in WHERE kept_in IS NOT NULL
    SET s.conversation_id = kept_in
    RETURN [] AS unit_tags
  }
  RETURN count(s) - sum(CASE WHEN kept_in IS NULL THEN 0 ELSE 1 END) AS n_units,
         collect(unit_tags) AS unit_tag_lists
}
CALL (tags, unit_tag_lists) {
  UNWIND tags + reduce(acc = [], l IN unit_tag_lists | acc + l) AS g
  WITH DISTINCT g WHERE g.namespace = $namespace
  OPTIONAL MATCH (c:Cue {namespace: $namespace})-[:HAS_TAG]->(g)
  WITH g, c, COUNT { (g)-[:LEADS_TO]->(content {namespace: $namespace}) } AS leads
  CALL (g, leads) {
    WITH g, leads WHERE leads = 0
    DETACH DELETE g
    RETURN 1 AS gone
  UNION
    WITH g, leads WHERE leads > 0
    RETURN 0 AS gone
  }
  RETURN sum(gone) AS n_tags, collect(DISTINCT c) AS cues
}
CALL (cues) {
  UNWIND cues AS c
  WITH c, COUNT { (c)-[:HAS_TAG]->(tag {namespace: $namespace}) } AS tags_left
  WHERE c.namespace = $namespace
  CALL (c, tags_left) {
    WITH c, tags_left WHERE tags_left = 0
    DETACH DELETE c
    RETURN 1 AS gone
  UNION
    WITH c, tags_left WHERE tags_left > 0
    SET c.contents = COUNT { MATCH (c)-[:HAS_TAG]->(:Tag {namespace: $namespace})-[:LEADS_TO]->(v:Episode {namespace: $namespace}) RETURN DISTINCT v }
    RETURN 0 AS gone
  }
  RETURN sum(gone) AS n_cues
}
RETURN n_episodes + n_themes + n_timelines + n_units + n_tags + n_cues AS deleted

// description: node and relationship counts of the associative graph in one namespace
// params: namespace
// returns: episodes, cues, tags, semantic_units, themes, timelines, has_tag, leads_to, next_episode, derived_from, groups
// mode: read
RETURN
  COUNT { MATCH (n:Episode {namespace: $namespace}) } AS episodes,
  COUNT { MATCH (n:Cue {namespace: $namespace}) } AS cues,
  COUNT { MATCH (n:Tag {namespace: $namespace}) } AS tags,
  COUNT { MATCH (n:SemanticUnit {namespace: $namespace}) } AS semantic_units,
  COUNT { MATCH (n:Theme {namespace: $namespace}) } AS themes,
  COUNT { MATCH (n:Timeline {namespace: $namespace}) } AS timelines,
  COUNT { MATCH (:Cue {namespace: $namespace})-[r:HAS_TAG]->({namespace: $namespace}) } AS has_tag,
  COUNT { MATCH (:Tag {namespace: $namespace})-[r:LEADS_TO]->({namespace: $namespace}) } AS leads_to,
  COUNT { MATCH (:Episode {namespace: $namespace})-[r:NEXT_EPISODE]->({namespace: $namespace}) } AS next_episode,
  COUNT { MATCH (:SemanticUnit {namespace: $namespace})-[r:DERIVED_FROM]->({namespace: $namespace}) } AS derived_from,
  COUNT { MATCH (:Theme {namespace: $namespace})-[r:GROUPS]->({namespace: $namespace}) } AS groups

// description: benchmark: timeline integrity of one namespace's associative memory after concurrent writes: conversations, episodes with more than one NEXT_EPISODE successor or predecessor (forks), timeline heads (episodes without a predecessor; one per conversation when sound), NEXT_EPISODE links across conversations or against position order, episodes no tag leads to
// params: namespace
// returns: conversations, timeline_forks, timeline_heads, cross_conversation_links, out_of_order, without_cue
// mode: read
CALL () {
  MATCH (e:Episode {namespace: $namespace})
  WITH e, COUNT { (e)-[:NEXT_EPISODE]->(:Episode {namespace: $namespace}) } AS outs,
       COUNT { (:Episode {namespace: $namespace})-[:NEXT_EPISODE]->(e) } AS ins,
       EXISTS { (:Tag {namespace: $namespace})-[:LEADS_TO]->(e) } AS cued
  RETURN count(DISTINCT e.conversation_id) AS conversations,
         sum(CASE WHEN outs > 1 OR ins > 1 THEN 1 ELSE 0 END) AS timeline_forks,
         sum(CASE WHEN ins = 0 THEN 1 ELSE 0 END) AS timeline_heads,
         sum(CASE WHEN cued THEN 0 ELSE 1 END) AS without_cue
}
CALL () {
  OPTIONAL MATCH (a:Episode {namespace: $namespace})-[:NEXT_EPISODE]->(b:Episode {namespace: $namespace})
  RETURN sum(CASE WHEN a.conversation_id <> b.conversation_id THEN 1 ELSE 0 END) AS cross_conversation_links,
         sum(CASE WHEN a.position >= b.position THEN 1 ELSE 0 END) AS out_of_order
}
RETURN conversations, coalesce(timeline_forks, 0) AS timeline_forks,
       coalesce(timeline_heads, 0) AS timeline_heads,
       coalesce(cross_conversation_links, 0) AS cross_conversation_links,
       coalesce(out_of_order, 0) AS out_of_order, coalesce(without_cue, 0) AS without_cue

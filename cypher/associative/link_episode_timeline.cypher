// description: chain consecutive Episodes of a conversation on its timeline with NEXT_EPISODE
// params: namespace, pairs
// returns: links
// mode: write
UNWIND $pairs AS pair
MATCH (a:Episode {id: pair.previous})
USING INDEX a:Episode(id)
MATCH (b:Episode {id: pair.next})
USING INDEX b:Episode(id)
WHERE a.namespace = $namespace AND b.namespace = $namespace
MERGE (a)-[r:NEXT_EPISODE]->(b)
RETURN count(r) AS links

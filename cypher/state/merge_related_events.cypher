// description: cross-topic RELATED_EVENT edges of a batch (pairs computed in memory by graphmem.state.related.related_pairs), each undirected pair once; returns the edges created
// params: namespace, pairs
// returns: created
// mode: write
UNWIND $pairs AS pair
MATCH (a:Event {id: pair.source})
WHERE a.namespace = $namespace
MATCH (b:Event {id: pair.target})
WHERE b.namespace = $namespace AND NOT EXISTS { (a)-[:RELATED_EVENT]-(b) }
CREATE (a)-[r:RELATED_EVENT {similarity: pair.similarity}]->(b)
RETURN count(r) AS created

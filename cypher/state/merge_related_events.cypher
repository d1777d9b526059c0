// description: cross-topic RELATED_EVENT edges of a batch (pairs computed in memory by graphmem.state.related.related_pairs, each undirected pair once, every pair with a new event: none exists yet); returns the edges created
// params: namespace, pairs
// returns: created
// mode: write
UNWIND $pairs AS pair
MATCH (a:Event {id: pair.source})
USING INDEX a:Event(id)
WHERE a.namespace = $namespace
MATCH (b:Event {id: pair.target})
USING INDEX b:Event(id)
WHERE b.namespace = $namespace
CREATE (a)-[r:RELATED_EVENT {similarity: pair.similarity}]->(b)
RETURN count(r) AS created

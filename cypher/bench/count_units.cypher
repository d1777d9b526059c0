// description: benchmark: Event and Episode memory units of one namespace (namespace index seeks)
// params: namespace
// returns: events, episodes
// mode: read
CALL (){ MATCH (e:Event {namespace: $namespace}) RETURN count(e) AS events }
CALL (){ MATCH (p:Episode {namespace: $namespace}) RETURN count(p) AS episodes }
RETURN events, episodes

// description: test-only: the Person nodes of one namespace (properties) with the first source id of every Event that MENTIONS each
// params: namespace
// returns: props, mentioned_by
// mode: read
MATCH (p:Person {namespace: $namespace})
RETURN properties(p) AS props,
       [(e:Event)-[:MENTIONS]->(p) WHERE e.namespace = $namespace | e.source_ids[0]] AS mentioned_by
ORDER BY p.key

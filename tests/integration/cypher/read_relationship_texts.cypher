// description: test-only: every relationship whose two ends carry this namespace: type, start and end ids, all properties, and each temporal property also as Neo4j's own text (toString)
// params: namespace
// returns: type, start, end, props, times
// mode: read
MATCH (a)-[r]->(b) WHERE a.namespace = $namespace AND b.namespace = $namespace
RETURN type(r) AS type, a.id AS start, b.id AS end, properties(r) AS props,
       [k IN keys(r) WHERE valueType(r[k]) IN ['ZONED DATETIME NOT NULL', 'LOCAL DATETIME NOT NULL',
                                               'DATE NOT NULL', 'ZONED TIME NOT NULL',
                                               'LOCAL TIME NOT NULL', 'DURATION NOT NULL']
        | [k, toString(r[k])]] AS times

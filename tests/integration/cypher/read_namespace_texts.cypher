// description: test-only: every node carrying this namespace (labels, id, all properties) with each temporal property also as Neo4j's own text (toString: nanoseconds, offset or zone id), for exact comparisons of two namespaces
// params: namespace
// returns: labels, id, props, times
// mode: read
MATCH (n) WHERE n.namespace = $namespace
RETURN labels(n) AS labels, n.id AS id, properties(n) AS props,
       [k IN keys(n) WHERE valueType(n[k]) IN ['ZONED DATETIME NOT NULL', 'LOCAL DATETIME NOT NULL',
                                               'DATE NOT NULL', 'ZONED TIME NOT NULL',
                                               'LOCAL TIME NOT NULL', 'DURATION NOT NULL']
        | [k, toString(n[k])]] AS times

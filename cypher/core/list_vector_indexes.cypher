// description: every vector index with its label, property and dimension
// params: none
// returns: name, labels, properties, dimension
// mode: read
SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options
RETURN name, labelsOrTypes AS labels, properties,
       options.indexConfig.`vector.dimensions` AS dimension

// description: every vector and fulltext index (queried by name, so one under another name cannot serve graphmem) with its schema, vector config and state
// params: none
// returns: name, type, labels, properties, dimension, similarity, state
// mode: read
SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options, state
WHERE type IN ['VECTOR', 'FULLTEXT']
RETURN name, type, labelsOrTypes AS labels, properties,
       options.indexConfig.`vector.dimensions` AS dimension,
       toLower(options.indexConfig.`vector.similarity_function`) AS similarity, state

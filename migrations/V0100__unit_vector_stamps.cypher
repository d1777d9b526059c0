// V0100 retrieval engine: the in-process vector cache (graphmem.retrieval.vectors) checks its
// token -- count and sum of a namespace's unit vector_stamps -- in every cached round; a range
// index on (namespace, vector_stamp) answers that aggregate from the index alone instead of
// reading every unit of the namespace. Units written before vector stamps existed get one, so
// every unit is in the index (graphmem sets a new random stamp on every vector it writes).
// Idempotent (IF NOT EXISTS; only units without a stamp are stamped).
CREATE INDEX event_namespace_vector_stamp IF NOT EXISTS FOR (n:Event) ON (n.namespace, n.vector_stamp);
CREATE INDEX episode_namespace_vector_stamp IF NOT EXISTS FOR (n:Episode) ON (n.namespace, n.vector_stamp);
MATCH (u:Event) WHERE u.vector_stamp IS NULL SET u.vector_stamp = toInteger(rand() * 1099511627776);
MATCH (u:Episode) WHERE u.vector_stamp IS NULL SET u.vector_stamp = toInteger(rand() * 1099511627776);

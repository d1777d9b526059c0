// V0110 retrieval engine and write cost.
// (1) The vector cache's token is the unit version of a namespace: the unit_version of the write
// locks of its conversations (ConversationLock for state memory's Events, Timeline for
// associative memory's Episodes), raised by every transaction that writes unit vectors and read
// from the namespace's few lock nodes instead of every unit's stamp. Locks written before get one
// (random, as a new lock's).
// (2) Vector indexes no query reads: recall searches Event and Episode vectors (and Query and
// Task vectors in insight and experience memory); the vectors of topics, states, semantic units,
// themes and insights are stored and compared in Python or Cypher, never searched by index, and
// cues and tags carry no vector. Every write of such a node paid an HNSW insert.
// Idempotent (only locks without a version are set; IF EXISTS).
MATCH (c:ConversationLock) WHERE c.unit_version IS NULL SET c.unit_version = toInteger(rand() * 1099511627776);
MATCH (t:Timeline) WHERE t.unit_version IS NULL SET t.unit_version = toInteger(rand() * 1099511627776);
DROP INDEX topic_embedding IF EXISTS;
DROP INDEX state_embedding IF EXISTS;
DROP INDEX semantic_unit_embedding IF EXISTS;
DROP INDEX theme_embedding IF EXISTS;
DROP INDEX insight_embedding IF EXISTS;
DROP INDEX cue_embedding IF EXISTS;
DROP INDEX tag_embedding IF EXISTS;

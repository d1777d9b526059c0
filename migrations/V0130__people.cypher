// V0130 state memory people: one Person node per person of a conversation (a speaker, or a
// third party the conversation talks about; graphmem.state.people), MERGEd on its id and
// replaced per conversation. A namespace holds few of them (a handful per conversation), so
// one range index on namespace serves every read: state/delete_people (namespace and
// conversation_id), retrieval/person_aliases and the core counts (namespace).
CREATE CONSTRAINT person_id IF NOT EXISTS FOR (n:Person) REQUIRE n.id IS UNIQUE;
CREATE INDEX person_namespace IF NOT EXISTS FOR (n:Person) ON (n.namespace);

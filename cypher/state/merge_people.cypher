// description: write the Person nodes of one conversation (graphmem.state.people.resolve_people: key, display name, lower-cased aliases, speaker labels; MERGEd on the id derived from namespace, conversation and key) and a MENTIONS edge from each Event that mentions a person to that person; returns the people and edges written
// params: namespace, conversation, people
// returns: people, mentions
// mode: write
UNWIND $people AS row
MERGE (p:Person {id: row.id})
ON CREATE SET p.namespace = $namespace, p.created_at = datetime()
WITH p, row
WHERE p.namespace = $namespace
SET p.conversation_id = $conversation, p.key = row.key, p.name = row.name,
    p.aliases = row.aliases, p.speakers = row.speakers
WITH p, row
CALL (p, row) {
  UNWIND row.events AS eid
  MATCH (e:Event {id: eid})
  USING INDEX e:Event(id)
  WHERE e.namespace = $namespace
  MERGE (e)-[m:MENTIONS]->(p)
  RETURN count(m) AS edges
}
RETURN count(p) AS people, sum(edges) AS mentions

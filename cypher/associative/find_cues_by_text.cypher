// description: question cues matched to Cue nodes by normalised text (index on namespace, text)
// params: namespace, texts
// returns: id, text, kind, contents
// mode: read
UNWIND $texts AS wanted
MATCH (c:Cue {namespace: $namespace, text: wanted})
RETURN c.id AS id, c.text AS text, c.kind AS kind,
       COUNT { (c)-[:HAS_TAG]->(:Tag {namespace: $namespace})-[:LEADS_TO]->({namespace: $namespace}) } AS contents

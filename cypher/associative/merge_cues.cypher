// description: MERGE Cue nodes, shared per namespace by normalised text (id = uuid5(namespace, text))
// params: namespace, rows
// returns: cues
// mode: write
UNWIND $rows AS row
MERGE (c:Cue {id: row.id})
ON CREATE SET c.namespace = $namespace, c.created_at = datetime(), c.text = row.text,
              c.kind = row.kind, c.embedding = row.embedding
RETURN count(c) AS cues

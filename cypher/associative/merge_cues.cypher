// description: MERGE Cue nodes, shared per namespace by normalised text (id = uuid5(namespace, text)) (matched by text, no vector; created = nodes new in this call)
// params: namespace, rows
// returns: created
// mode: write
UNWIND $rows AS row
MERGE (c:Cue {id: row.id})
ON CREATE SET c.namespace = $namespace, c.created_at = datetime(), c.text = row.text,
              c.kind = row.kind, c._new = true
WITH collect(DISTINCT c) AS nodes
CALL (nodes) {
  UNWIND nodes AS n
  WITH n WHERE n._new = true
  REMOVE n._new
  RETURN count(n) AS created
}
RETURN created

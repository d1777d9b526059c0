// description: test-only toy memory (tests/toy_memory.py): MERGE notes of one namespace by id, with the embedding of their text
// params: namespace, rows
// returns: created
// mode: write
UNWIND $rows AS row
MERGE (n:Note {id: row.id})
ON CREATE SET n.namespace = $namespace, n.text = row.text, n.embedding = row.embedding,
  n.created = true
WITH n, coalesce(n.created, false) AS created
REMOVE n.created
RETURN sum(CASE WHEN created THEN 1 ELSE 0 END) AS created

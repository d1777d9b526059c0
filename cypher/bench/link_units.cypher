// description: benchmark bulk write: link consecutive filler units of one namespace as a retrieval session does, (prev)-[:NEXT_TURN]->(next) with prev_id / next_id on both ends (benchmarks/export_import.py: a namespace whose units carry relationships and id references)
// params: namespace, rows
// returns: linked
// mode: write
// template: Unit = Event | Episode
UNWIND $rows AS row
MATCH (a:{{Unit}} {id: row.prev})
WHERE a.namespace = $namespace
MATCH (b:{{Unit}} {id: row.next})
WHERE b.namespace = $namespace
MERGE (a)-[:NEXT_TURN]->(b)
SET a.next_id = b.id, b.prev_id = a.id
RETURN count(*) AS linked

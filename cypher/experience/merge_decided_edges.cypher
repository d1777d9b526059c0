// description: upsert DECIDED edges (the observation under which the next action was taken, Algorithm 1)
// params: namespace, rows
// returns: count
// mode: write
UNWIND $rows AS row
MATCH (a:Action {id: row.source, namespace: $namespace})
USING INDEX a:Action(id)
MATCH (b:Action {id: row.target, namespace: $namespace})
USING INDEX b:Action(id)
MERGE (a)-[d:DECIDED]->(b)
SET d.observation = row.observation, d.observation_raw = row.observation_raw,
    d.label = row.label, d.step = row.step
RETURN count(d) AS count

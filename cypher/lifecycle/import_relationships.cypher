// description: create one batch of imported relationships whose start node is a {{Label}} node of a namespace: each row's start and end node (ids already those of this namespace; the end node found among the memories' labels) and its type, one of graphmem's relationship types written out below (a type is never taken from a parameter: rows of another type create nothing), with its properties (decoded); created counts the rows whose two ends were found (graphmem.lifecycle.import_)
// params: namespace, rows
// returns: created
// mode: write
// template: Label = Query | Step | Insight | ControllerDecision | Task | DecisionGraph | Action | EditOperation | Topic | Event | State | Cue | Tag | Episode | SemanticUnit | Theme
UNWIND $rows AS row
MATCH (a:{{Label}} {id: row.start})
USING INDEX a:{{Label}}(id)
WHERE a.namespace = $namespace
MATCH (b:{{MEMORY_LABELS}} {id: row.end})
WHERE b.namespace = $namespace
FOREACH (_ IN CASE WHEN row.type = 'CONFLICTS_WITH' THEN [1] ELSE [] END |
  CREATE (a)-[r:CONFLICTS_WITH]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'CONTEXTUALIZES' THEN [1] ELSE [] END |
  CREATE (a)-[r:CONTEXTUALIZES]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'CURRENT_STATE' THEN [1] ELSE [] END |
  CREATE (a)-[r:CURRENT_STATE]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'DECIDED' THEN [1] ELSE [] END |
  CREATE (a)-[r:DECIDED]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'DECIDED_ON' THEN [1] ELSE [] END |
  CREATE (a)-[r:DECIDED_ON]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'DERIVED_FROM' THEN [1] ELSE [] END |
  CREATE (a)-[r:DERIVED_FROM]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'EDITS' THEN [1] ELSE [] END |
  CREATE (a)-[r:EDITS]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'EVIDENCED_BY' THEN [1] ELSE [] END |
  CREATE (a)-[r:EVIDENCED_BY]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'FIRST_STEP' THEN [1] ELSE [] END |
  CREATE (a)-[r:FIRST_STEP]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'FIRST_TIMELINE_NODE' THEN [1] ELSE [] END |
  CREATE (a)-[r:FIRST_TIMELINE_NODE]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'FOR_QUERY' THEN [1] ELSE [] END |
  CREATE (a)-[r:FOR_QUERY]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'GROUPS' THEN [1] ELSE [] END |
  CREATE (a)-[r:GROUPS]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'HAS_ACTION' THEN [1] ELSE [] END |
  CREATE (a)-[r:HAS_ACTION]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'HAS_EDIT' THEN [1] ELSE [] END |
  CREATE (a)-[r:HAS_EDIT]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'HAS_GRAPH' THEN [1] ELSE [] END |
  CREATE (a)-[r:HAS_GRAPH]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'HAS_TAG' THEN [1] ELSE [] END |
  CREATE (a)-[r:HAS_TAG]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'INITIAL_STATE' THEN [1] ELSE [] END |
  CREATE (a)-[r:INITIAL_STATE]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'LEADS_TO' THEN [1] ELSE [] END |
  CREATE (a)-[r:LEADS_TO]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'MENTIONS' THEN [1] ELSE [] END |
  CREATE (a)-[r:MENTIONS]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'NEXT_EPISODE' THEN [1] ELSE [] END |
  CREATE (a)-[r:NEXT_EPISODE]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'NEXT_STEP' THEN [1] ELSE [] END |
  CREATE (a)-[r:NEXT_STEP]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'NEXT_TURN' THEN [1] ELSE [] END |
  CREATE (a)-[r:NEXT_TURN]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'RELATED_EVENT' THEN [1] ELSE [] END |
  CREATE (a)-[r:RELATED_EVENT]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'RELATED_QUERY' THEN [1] ELSE [] END |
  CREATE (a)-[r:RELATED_QUERY]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'RESULTED_IN' THEN [1] ELSE [] END |
  CREATE (a)-[r:RESULTED_IN]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'REVISION_OF' THEN [1] ELSE [] END |
  CREATE (a)-[r:REVISION_OF]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'SEMANTIC_NEXT' THEN [1] ELSE [] END |
  CREATE (a)-[r:SEMANTIC_NEXT]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'SIMILAR_TASK' THEN [1] ELSE [] END |
  CREATE (a)-[r:SIMILAR_TASK]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'SUPPORTED_BY' THEN [1] ELSE [] END |
  CREATE (a)-[r:SUPPORTED_BY]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'SUPPORTS' THEN [1] ELSE [] END |
  CREATE (a)-[r:SUPPORTS]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'TARGETS' THEN [1] ELSE [] END |
  CREATE (a)-[r:TARGETS]->(b) SET r = row.properties)
FOREACH (_ IN CASE WHEN row.type = 'TEMPORAL_NEXT' THEN [1] ELSE [] END |
  CREATE (a)-[r:TEMPORAL_NEXT]->(b) SET r = row.properties)
RETURN count(*) AS created

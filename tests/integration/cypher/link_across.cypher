// description: test-only: plant ONE relationship of a fixed type between two nodes given by id, whatever their namespaces (simulates a corrupted cross-tenant edge that every hop must ignore)
// params: from_id, to_id, type
// returns: linked
// mode: write
MATCH (a) WHERE a.id = $from_id
MATCH (b) WHERE b.id = $to_id
FOREACH (_ IN CASE WHEN $type = 'RELATED_QUERY' THEN [1] ELSE [] END | CREATE (a)-[:RELATED_QUERY]->(b))
FOREACH (_ IN CASE WHEN $type = 'SUPPORTS' THEN [1] ELSE [] END | CREATE (a)-[:SUPPORTS]->(b))
FOREACH (_ IN CASE WHEN $type = 'CONFLICTS_WITH' THEN [1] ELSE [] END | CREATE (a)-[:CONFLICTS_WITH]->(b))
FOREACH (_ IN CASE WHEN $type = 'REVISION_OF' THEN [1] ELSE [] END | CREATE (a)-[:REVISION_OF]->(b))
FOREACH (_ IN CASE WHEN $type = 'CONTEXTUALIZES' THEN [1] ELSE [] END | CREATE (a)-[:CONTEXTUALIZES {via_query: 'x'}]->(b))
FOREACH (_ IN CASE WHEN $type = 'SIMILAR_TASK' THEN [1] ELSE [] END | CREATE (a)-[:SIMILAR_TASK {similarity: 1.0, cross_insight: 'leak'}]->(b))
FOREACH (_ IN CASE WHEN $type = 'HAS_GRAPH' THEN [1] ELSE [] END | CREATE (a)-[:HAS_GRAPH]->(b))
FOREACH (_ IN CASE WHEN $type = 'HAS_ACTION' THEN [1] ELSE [] END | CREATE (a)-[:HAS_ACTION]->(b))
FOREACH (_ IN CASE WHEN $type = 'DECIDED' THEN [1] ELSE [] END | CREATE (a)-[:DECIDED {observation: 'leak', step: 0}]->(b))
FOREACH (_ IN CASE WHEN $type = 'HAS_EDIT' THEN [1] ELSE [] END | CREATE (a)-[:HAS_EDIT]->(b))
FOREACH (_ IN CASE WHEN $type = 'TEMPORAL_NEXT' THEN [1] ELSE [] END | CREATE (a)-[:TEMPORAL_NEXT]->(b))
FOREACH (_ IN CASE WHEN $type = 'SUPPORTED_BY' THEN [1] ELSE [] END | CREATE (a)-[:SUPPORTED_BY]->(b))
FOREACH (_ IN CASE WHEN $type = 'CURRENT_STATE' THEN [1] ELSE [] END | CREATE (a)-[:CURRENT_STATE]->(b))
FOREACH (_ IN CASE WHEN $type = 'INITIAL_STATE' THEN [1] ELSE [] END | CREATE (a)-[:INITIAL_STATE]->(b))
FOREACH (_ IN CASE WHEN $type = 'SEMANTIC_NEXT' THEN [1] ELSE [] END | CREATE (a)-[:SEMANTIC_NEXT]->(b))
FOREACH (_ IN CASE WHEN $type = 'FIRST_TIMELINE_NODE' THEN [1] ELSE [] END | CREATE (a)-[:FIRST_TIMELINE_NODE]->(b))
FOREACH (_ IN CASE WHEN $type = 'EVIDENCED_BY' THEN [1] ELSE [] END | CREATE (a)-[:EVIDENCED_BY]->(b))
FOREACH (_ IN CASE WHEN $type = 'HAS_TAG' THEN [1] ELSE [] END | CREATE (a)-[:HAS_TAG]->(b))
FOREACH (_ IN CASE WHEN $type = 'LEADS_TO' THEN [1] ELSE [] END | CREATE (a)-[:LEADS_TO]->(b))
FOREACH (_ IN CASE WHEN $type = 'GROUPS' THEN [1] ELSE [] END | CREATE (a)-[:GROUPS]->(b))
FOREACH (_ IN CASE WHEN $type = 'DERIVED_FROM' THEN [1] ELSE [] END | CREATE (a)-[:DERIVED_FROM]->(b))
FOREACH (_ IN CASE WHEN $type = 'NEXT_EPISODE' THEN [1] ELSE [] END | CREATE (a)-[:NEXT_EPISODE]->(b))
FOREACH (_ IN CASE WHEN $type = 'RELATED_EVENT' THEN [1] ELSE [] END | CREATE (a)-[:RELATED_EVENT {similarity: 1.0}]->(b))
RETURN count(*) AS linked

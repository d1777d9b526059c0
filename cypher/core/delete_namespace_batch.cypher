// description: delete at most $batch nodes (and their relationships) of one namespace; admin, namespace-wide; run until it deletes 0
// params: namespace, batch
// returns: deleted
// mode: write
MATCH (n:Query|Step|Insight|ControllerDecision|Task|DecisionGraph|Action|EditOperation|Topic|Event|State|Cue|Tag|Episode|SemanticUnit|Theme)
WHERE n.namespace = $namespace
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted

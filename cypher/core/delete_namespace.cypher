// description: delete every node (and its relationships) of one namespace; admin, namespace-wide
// params: namespace
// returns: deleted
// mode: write
MATCH (n:Query|Step|Insight|ControllerDecision|Task|DecisionGraph|Action|EditOperation|Topic|Event|State|Cue|Tag|Episode|SemanticUnit|Theme)
WHERE n.namespace = $namespace
DETACH DELETE n
RETURN count(*) AS deleted

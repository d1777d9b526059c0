// description: node count per label in one namespace
// params: namespace
// returns: label, nodes
// mode: read
MATCH (n:Query|Step|Insight|ControllerDecision|Task|DecisionGraph|Action|EditOperation|Topic|Event|State|Cue|Tag|Episode|SemanticUnit|Theme)
WHERE n.namespace = $namespace
UNWIND labels(n) AS label
RETURN label, count(*) AS nodes
ORDER BY label

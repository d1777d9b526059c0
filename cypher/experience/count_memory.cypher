// description: node and relationship counts of the experience memory in one namespace (a relationship counts when both its ends are in the namespace)
// params: namespace
// returns: tasks, graphs, actions, edit_operations, similar_edges, decided_edges
// mode: read
CALL (){ MATCH (n:Task {namespace: $namespace}) RETURN count(n) AS tasks }
CALL (){ MATCH (n:DecisionGraph {namespace: $namespace}) RETURN count(n) AS graphs }
CALL (){ MATCH (n:Action {namespace: $namespace}) RETURN count(n) AS actions }
CALL (){ MATCH (n:EditOperation {namespace: $namespace}) RETURN count(n) AS edit_operations }
CALL (){ MATCH (:Task {namespace: $namespace})-[s:SIMILAR_TASK]->(:Task {namespace: $namespace}) RETURN count(s) AS similar_edges }
CALL (){ MATCH (:Action {namespace: $namespace})-[d:DECIDED]->(:Action {namespace: $namespace}) RETURN count(d) AS decided_edges }
RETURN tasks, graphs, actions, edit_operations, similar_edges, decided_edges

// description: test-only: properties of every node of one namespace with one label (one namespace-index seek per memory label)
// params: namespace, label
// returns: id, props
// mode: read
CALL () {
  MATCH (n:Query {namespace: $namespace}) RETURN n
  UNION MATCH (n:Step {namespace: $namespace}) RETURN n
  UNION MATCH (n:Insight {namespace: $namespace}) RETURN n
  UNION MATCH (n:ControllerDecision {namespace: $namespace}) RETURN n
  UNION MATCH (n:Task {namespace: $namespace}) RETURN n
  UNION MATCH (n:DecisionGraph {namespace: $namespace}) RETURN n
  UNION MATCH (n:Action {namespace: $namespace}) RETURN n
  UNION MATCH (n:EditOperation {namespace: $namespace}) RETURN n
  UNION MATCH (n:Topic {namespace: $namespace}) RETURN n
  UNION MATCH (n:Event {namespace: $namespace}) RETURN n
  UNION MATCH (n:State {namespace: $namespace}) RETURN n
  UNION MATCH (n:ConversationLock {namespace: $namespace}) RETURN n
  UNION MATCH (n:Cue {namespace: $namespace}) RETURN n
  UNION MATCH (n:Tag {namespace: $namespace}) RETURN n
  UNION MATCH (n:Episode {namespace: $namespace}) RETURN n
  UNION MATCH (n:SemanticUnit {namespace: $namespace}) RETURN n
  UNION MATCH (n:Theme {namespace: $namespace}) RETURN n
  UNION MATCH (n:Timeline {namespace: $namespace}) RETURN n
}
WITH n WHERE $label IN labels(n)
RETURN n.id AS id, properties(n) AS props

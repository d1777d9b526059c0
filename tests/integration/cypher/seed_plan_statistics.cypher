// description: test-only: give the planner realistic statistics: $per_label nodes of every graphmem label spread over $tenants namespaces named $namespace + '-' + i
// params: namespace, per_label, tenants
// returns: created
// mode: write
UNWIND range(0, $per_label - 1) AS i
WITH i, $namespace + '-' + toString(i % $tenants) AS ns, $namespace + ':seed:' + toString(i) AS id
CREATE (:Query {id: id + ':q', namespace: ns, text: 'seed', status: 'resolved'})
CREATE (:Step {id: id + ':s', namespace: ns, content: 'seed'})
CREATE (:Insight {id: id + ':i', namespace: ns, content: 'seed', active: true})
CREATE (:ControllerDecision {id: id + ':d', namespace: ns, operation: 'KEEP', controller: 'seed'})
CREATE (:Task {id: id + ':t', namespace: ns, query: 'seed', task_key: id})
CREATE (:DecisionGraph {id: id + ':g', namespace: ns, kind: 'expert'})
CREATE (:Action {id: id + ':a', namespace: ns, key: 'seed'})
CREATE (:EditOperation {id: id + ':o', namespace: ns, operation: 'seed'})
CREATE (:Topic {id: id + ':p', namespace: ns, name: 'seed', conversation: ns + ':conv-' + toString(i % 7)})
CREATE (:Event {id: id + ':e', namespace: ns, text: 'seed', source_id: id})
CREATE (:State {id: id + ':x', namespace: ns, content: 'seed'})
CREATE (:Cue {id: id + ':c', namespace: ns, text: 'seed' + toString(i)})
CREATE (:Tag {id: id + ':g2', namespace: ns, text: 'seed', cue_id: id + ':c'})
CREATE (:Episode {id: id + ':ep', namespace: ns, text: 'seed', source_id: id})
CREATE (:SemanticUnit {id: id + ':su', namespace: ns, text: 'seed'})
CREATE (:Theme {id: id + ':th', namespace: ns, name: 'seed'})
RETURN count(*) AS created

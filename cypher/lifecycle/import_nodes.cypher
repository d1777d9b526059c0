// description: create one batch of imported {{Label}} nodes in a namespace: each row's properties (decoded, node ids already those of this namespace), its id and the namespace; CREATE, never MERGE, so an id taken by any other node fails on the id constraint instead of writing into that node (graphmem.lifecycle.import_)
// params: namespace, rows
// returns: created
// mode: write
// template: Label = Query | Step | Insight | ControllerDecision | Task | DecisionGraph | Action | EditOperation | Topic | Event | State | ConversationLock | Person | Cue | Tag | Episode | SemanticUnit | Theme | Timeline | AuditRecord | RetentionPolicy
UNWIND $rows AS row
CREATE (n:{{Label}})
SET n = row.properties, n.id = row.id, n.namespace = $namespace
RETURN count(n) AS created

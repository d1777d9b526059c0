// V0010 insight memory (EvoGraph-Mem): indexes for retrieval of active insights (z = 1) and for
// the controller-decision audit trail by query and by insight.
// Forward-only: never edit this file once applied; add V0011... instead.

CREATE INDEX insight_namespace_active IF NOT EXISTS FOR (n:Insight) ON (n.namespace, n.active);
CREATE INDEX controller_decision_query_id IF NOT EXISTS FOR (n:ControllerDecision) ON (n.query_id);
CREATE INDEX controller_decision_insight_id IF NOT EXISTS FOR (n:ControllerDecision) ON (n.insight_id);

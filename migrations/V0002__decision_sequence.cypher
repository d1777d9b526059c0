// V0002 ControllerDecision.seq: a per-namespace sequence that orders an insight's decisions
// (several decisions can share a transaction's datetime()); record_decisions reads the latest
// one through this index (index-backed ORDER BY seq DESC LIMIT 1).
CREATE INDEX controller_decision_namespace_seq IF NOT EXISTS FOR (n:ControllerDecision) ON (n.namespace, n.seq);

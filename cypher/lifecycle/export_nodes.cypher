// description: one page of a namespace's {{Label}} nodes in id order (keyset pagination: ids above $after, at most $page), each with its labels, properties, the zone names of its zoned DateTime properties ([key, n[key].timezone]: the driver reads offset +00:00 and zone UTC alike) and its outgoing relationships to nodes of the namespace (type, end id and labels, properties, zone names): a namespace export (graphmem.lifecycle.export)
// params: namespace, after, page
// returns: id, labels, properties, zones, relationships
// mode: read
// values: plain
// template: Label = Query | Step | Insight | ControllerDecision | Task | DecisionGraph | Action | EditOperation | Topic | Event | State | ConversationLock | Person | Cue | Tag | Episode | SemanticUnit | Theme | Timeline | AuditRecord | RetentionPolicy
MATCH (n:{{Label}})
WHERE n.namespace = $namespace AND n.id > $after
WITH n ORDER BY n.id LIMIT $page
CALL (n) {
  OPTIONAL MATCH (n)-[r]->(m)
  WHERE m.namespace = $namespace
  RETURN collect(CASE WHEN r IS NOT NULL THEN {
    type: type(r), end: m.id, end_labels: labels(m), properties: properties(r),
    zones: [k IN keys(r) WHERE valueType(r[k]) CONTAINS 'ZONED DATETIME'
            | [k, CASE WHEN valueType(r[k]) STARTS WITH 'LIST' THEN [x IN r[k] | x.timezone]
                       ELSE r[k].timezone END]]} END) AS relationships
}
RETURN n.id AS id, labels(n) AS labels, properties(n) AS properties,
       [k IN keys(n) WHERE valueType(n[k]) CONTAINS 'ZONED DATETIME'
        | [k, CASE WHEN valueType(n[k]) STARTS WITH 'LIST' THEN [x IN n[k] | x.timezone]
                   ELSE n[k].timezone END]] AS zones,
       relationships
ORDER BY id

// description: test-only: create $count nodes of one embedded kind ($kind: query | task | event | episode | cue) in one namespace, each embedding = unit($center + $spread * random unit vector), drawn inside Neo4j: a big vector index of noise closer to a query than a small tenant's own memories
// params: namespace, kind, start, count, center, spread
// returns: created
// mode: write
UNWIND range($start, $start + $count - 1) AS i
WITH i, [x IN $center | rand() - 0.5] AS r
WITH i, r, sqrt(reduce(s = 0.0, x IN r | s + x * x)) AS rn
WITH i, [j IN range(0, size(r) - 1) | $center[j] + $spread * r[j] / rn] AS v
WITH i, v, sqrt(reduce(s = 0.0, x IN v | s + x * x)) AS vn
WITH i, [x IN v | x / vn] AS e, $namespace + ':noise:' + $kind + ':' + toString(i) AS id
FOREACH (_ IN CASE WHEN $kind = 'query' THEN [1] ELSE [] END |
  CREATE (:Query {id: id, namespace: $namespace, text: 'noise', status: 'resolved', embedding: e}))
FOREACH (_ IN CASE WHEN $kind = 'task' THEN [1] ELSE [] END |
  CREATE (:Task {id: id, namespace: $namespace, task_key: id, query: 'noise', embedding: e}))
FOREACH (_ IN CASE WHEN $kind = 'event' THEN [1] ELSE [] END |
  CREATE (:Event {id: id, namespace: $namespace, text: 'noise', embedding: e}))
FOREACH (_ IN CASE WHEN $kind = 'episode' THEN [1] ELSE [] END |
  CREATE (:Episode {id: id, namespace: $namespace, text: 'noise', embedding: e}))
FOREACH (_ IN CASE WHEN $kind = 'cue' THEN [1] ELSE [] END |
  CREATE (:Cue {id: id, namespace: $namespace, text: id, kind: 'keyword', embedding: e}))
RETURN count(*) AS created

// description: doctor: nodes of one embedded label (a memory's own, without a doctor/scan_<label> query of its own) in one namespace whose embedding is missing, of another width than $dimension, non-finite or all zeros, in id order after $after, at most $batch (one pass over the namespace's nodes of the label per batch), with the text the embedding is computed from (the node's text property)
// template: Label = {{EMBEDDED_LABELS}}
// params: namespace, dimension, after, batch
// returns: id, problem, width, text
// mode: read
MATCH (n:{{Label}} {namespace: $namespace})
WHERE n.id > $after
WITH n, CASE
  WHEN n.embedding IS NULL THEN 'missing'
  WHEN size(n.embedding) <> $dimension THEN 'wrong_width'
  WHEN NOT all(x IN n.embedding WHERE abs(x) <= 1.7976931348623157e308) THEN 'non_finite'
  WHEN NOT any(x IN n.embedding WHERE x <> 0.0) THEN 'zero'
END AS problem
WHERE problem IS NOT NULL
RETURN n.id AS id, problem, size(n.embedding) AS width, n.text AS text
ORDER BY id
LIMIT $batch

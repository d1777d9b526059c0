// description: doctor: Topic nodes of one namespace whose embedding is missing, of another width than $dimension, non-finite or all zeros, in id order after $after, at most $batch (one pass over the namespace's Topic nodes per batch), with the text the embedding is computed from
// params: namespace, dimension, after, batch
// returns: id, problem, width, text
// mode: read
MATCH (n:Topic {namespace: $namespace})
WHERE n.id > $after
WITH n, CASE
  WHEN n.embedding IS NULL THEN 'missing'
  WHEN size(n.embedding) <> $dimension THEN 'wrong_width'
  WHEN NOT all(x IN n.embedding WHERE abs(x) <= 1.7976931348623157e308) THEN 'non_finite'
  WHEN NOT any(x IN n.embedding WHERE x <> 0.0) THEN 'zero'
END AS problem
WHERE problem IS NOT NULL
RETURN n.id AS id, problem, size(n.embedding) AS width, coalesce(n.name, n.key) AS text
ORDER BY id
LIMIT $batch

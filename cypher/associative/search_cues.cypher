// description: question cues matched to Cue nodes by vector (cue_embedding, oversampled, namespace-filtered)
// params: namespace, embeddings, oversample, k
// returns: query, id, text, kind, score, contents
// mode: read
UNWIND range(0, size($embeddings) - 1) AS query
CALL (query) {
  CALL db.index.vector.queryNodes('cue_embedding', $oversample, $embeddings[query]) YIELD node, score
  WITH node, score
  WHERE node.namespace = $namespace
  RETURN node, score
  ORDER BY score DESC
  LIMIT $k
}
RETURN query, node.id AS id, node.text AS text, node.kind AS kind, score,
       COUNT { (node)-[:HAS_TAG]->(:Tag {namespace: $namespace})-[:LEADS_TO]->({namespace: $namespace}) } AS contents

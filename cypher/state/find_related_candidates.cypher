// description: stored events of the same conversation and another topic most similar to each new event (vector index query, oversampled, filtered by namespace and conversation; at most per_event per new event); score is cosine in [-1, 1]
// params: namespace, conversation, rows, oversample, per_event
// returns: index, id, topic_id, similarity
// mode: read
UNWIND $rows AS row
CALL (row) {
  CALL db.index.vector.queryNodes('event_embedding', $oversample, row.embedding) YIELD node, score
  WITH node, score
  WHERE node.namespace = $namespace AND node.conversation = $conversation
    AND node.topic_id <> row.topic_id
  RETURN node.id AS id, node.topic_id AS topic_id, 2 * score - 1 AS similarity
  ORDER BY similarity DESC, id
  LIMIT $per_event
}
RETURN row.index AS index, id, topic_id, similarity

// description: for each new turn of a conversation, its stored session neighbours in conversation order (seq, then id): the stored event just before it and just after it in the same session (index seek on namespace, conversation, session, seq), each with the texts of its own stored neighbours on the far side (window texts)
// params: namespace, conversation, rows
// returns: id, predecessor, successor
// mode: read
UNWIND $rows AS row
CALL (row) {
  OPTIONAL MATCH (p:Event)
  USING INDEX SEEK p:Event(namespace, conversation, session, seq)
  WHERE p.namespace = $namespace AND p.conversation = $conversation AND p.session = row.session
    AND p.seq <= row.seq AND (p.seq < row.seq OR p.id < row.id)
  WITH p ORDER BY p.namespace DESC, p.conversation DESC, p.session DESC, p.seq DESC, p.id DESC
  LIMIT 1
  OPTIONAL MATCH (pp:Event {id: p.prev_id})
  USING INDEX pp:Event(id)
  WHERE pp.namespace = $namespace
  RETURN CASE WHEN p IS NULL THEN null ELSE p {
    .id, .seq, .speaker, .text, .session, .occurred_at, .prev_id, .next_id, .embedding,
    .topic_id, .conversation, .source_ids,
    far: CASE WHEN pp IS NULL THEN null ELSE pp {.id, .seq, .speaker, .text, .session} END} END AS predecessor
}
CALL (row) {
  OPTIONAL MATCH (s:Event)
  USING INDEX SEEK s:Event(namespace, conversation, session, seq)
  WHERE s.namespace = $namespace AND s.conversation = $conversation AND s.session = row.session
    AND s.seq >= row.seq AND (s.seq > row.seq OR s.id > row.id)
  WITH s ORDER BY s.namespace, s.conversation, s.session, s.seq, s.id LIMIT 1
  OPTIONAL MATCH (sn:Event {id: s.next_id})
  USING INDEX sn:Event(id)
  WHERE sn.namespace = $namespace
  RETURN CASE WHEN s IS NULL THEN null ELSE s {
    .id, .seq, .speaker, .text, .session, .occurred_at, .prev_id, .next_id, .embedding,
    .topic_id, .conversation, .source_ids,
    far: CASE WHEN sn IS NULL THEN null ELSE sn {.id, .seq, .speaker, .text, .session} END} END AS successor
}
RETURN row.id AS id, predecessor, successor

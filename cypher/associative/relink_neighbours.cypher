// description: attach a batch between the stored episodes around it: drop the NEXT_EPISODE / NEXT_TURN edge that joined them directly ($unlink: [{rel, previous, next}]), link the batch's last episode to the stored successors ($link: [{rel, previous, next}]; NEXT_TURN ones also set next_id / prev_id), and point the stored session neighbours at the batch ($point: [{id, next_id, prev_id}], null keeps the value); $unlink / $link rel is 'NEXT_EPISODE' or 'NEXT_TURN' and picks a branch, never spliced into the query
// params: namespace, unlink, link, point
// returns: changed
// mode: write
CALL () {
  UNWIND $unlink AS u
  MATCH (a:Episode {id: u.previous})-[r]->(b:Episode {id: u.next})
  USING INDEX a:Episode(id)
  WHERE a.namespace = $namespace AND b.namespace = $namespace AND type(r) = u.rel
    AND u.rel IN ['NEXT_EPISODE', 'NEXT_TURN']
  DELETE r
  RETURN count(*) AS dropped
}
CALL () {
  UNWIND $link AS l
  MATCH (a:Episode {id: l.previous}), (b:Episode {id: l.next})
  USING INDEX a:Episode(id)
  WHERE a.namespace = $namespace AND b.namespace = $namespace
  CALL (a, b, l) {
    WITH a, b, l WHERE l.rel = 'NEXT_EPISODE'
    MERGE (a)-[:NEXT_EPISODE]->(b)
  }
  CALL (a, b, l) {
    WITH a, b, l WHERE l.rel = 'NEXT_TURN'
    MERGE (a)-[:NEXT_TURN]->(b)
    SET a.next_id = b.id, b.prev_id = a.id
  }
  RETURN count(*) AS linked
}
CALL () {
  UNWIND $point AS p
  MATCH (e:Episode {id: p.id})
  USING INDEX e:Episode(id)
  WHERE e.namespace = $namespace
  SET e.next_id = coalesce(p.next_id, e.next_id), e.prev_id = coalesce(p.prev_id, e.prev_id)
  RETURN count(*) AS pointed
}
RETURN dropped + linked + pointed AS changed

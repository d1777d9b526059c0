// description: REVISE: MERGE a new version linked REVISION_OF to the old one, carry Omega+ and Omega- over (edges and counts), archive the old version (z = 0, kept)
// params: namespace, old_id, new_id, content, embedding
// returns: id, version, positive_evidence, negative_evidence, created
// mode: write
MATCH (old:Insight {id: $old_id, namespace: $namespace})
USING INDEX old:Insight(id)
MERGE (new:Insight {id: $new_id, namespace: $namespace})
ON CREATE SET new.content = $content, new.embedding = $embedding, new.active = true,
              new.version = coalesce(old.version, 1) + 1, new.evidence_version = 0,
              new.created_at = datetime(), new._new = true
WITH old, new, coalesce(new._new, false) AS created
REMOVE new._new
MERGE (new)-[:REVISION_OF]->(old)
SET old.active = false, old.archived_at = coalesce(old.archived_at, datetime())
WITH old, new, created
CALL (old, new) {
  MATCH (old)-[:SUPPORTS]->(q:Query)
  WHERE q.namespace = $namespace
  MERGE (new)-[e:SUPPORTS]->(q)
  ON CREATE SET e.created_at = datetime(), e.carried_from = old.id
  RETURN count(e) AS carried_positive
}
CALL (old, new) {
  MATCH (old)-[:CONFLICTS_WITH]->(q:Query)
  WHERE q.namespace = $namespace
  MERGE (new)-[e:CONFLICTS_WITH]->(q)
  ON CREATE SET e.created_at = datetime(), e.carried_from = old.id
  RETURN count(e) AS carried_negative
}
SET new.positive_evidence = COUNT { (new)-[:SUPPORTS]->(:Query {namespace: $namespace}) },
    new.negative_evidence = COUNT { (new)-[:CONFLICTS_WITH]->(:Query {namespace: $namespace}) }
RETURN new.id AS id, new.version AS version, new.positive_evidence AS positive_evidence,
       new.negative_evidence AS negative_evidence, created

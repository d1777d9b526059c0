// description: ADD (eq. 12): MERGE a new active insight with the current query in its Omega+, and CONTEXTUALIZES edges {via_query} from the listed insights to it
// params: namespace, insight_id, query_id, content, embedding, contextual_ids
// returns: id, contextualized, created
// mode: write
MATCH (q:Query {id: $query_id, namespace: $namespace})
USING INDEX q:Query(id)
MERGE (i:Insight {id: $insight_id, namespace: $namespace})
ON CREATE SET i.content = $content, i.embedding = $embedding, i.active = true, i.version = 1,
              i.positive_evidence = 0, i.negative_evidence = 0, i.evidence_version = 0,
              i.created_at = datetime(), i._new = true
WITH i, q, coalesce(i._new, false) AS created
REMOVE i._new
WITH i, q, created
MERGE (i)-[e:SUPPORTS]->(q)
ON CREATE SET e.created_at = datetime(),
              i.positive_evidence = coalesce(i.positive_evidence, 0) + 1
WITH i, q, created
CALL (i, q) {
  UNWIND $contextual_ids AS contextual_id
  MATCH (m:Insight {id: contextual_id, namespace: $namespace})
  USING INDEX m:Insight(id)
  WHERE m <> i
  MERGE (m)-[c:CONTEXTUALIZES {via_query: q.id}]->(i)
  ON CREATE SET c.created_at = datetime()
  RETURN count(c) AS contextualized
}
RETURN i.id AS id, contextualized, created

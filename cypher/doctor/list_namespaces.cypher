// description: doctor: every namespace holding an embedded node (database-wide, admin: a scan of each label's namespace index)
// params: none
// returns: namespace
// mode: read
CALL () {
  MATCH (n:Query) WHERE n.namespace IS NOT NULL RETURN DISTINCT n.namespace AS namespace
  UNION MATCH (n:Insight) WHERE n.namespace IS NOT NULL RETURN DISTINCT n.namespace AS namespace
  UNION MATCH (n:Task) WHERE n.namespace IS NOT NULL RETURN DISTINCT n.namespace AS namespace
  UNION MATCH (n:Topic) WHERE n.namespace IS NOT NULL RETURN DISTINCT n.namespace AS namespace
  UNION MATCH (n:Event) WHERE n.namespace IS NOT NULL RETURN DISTINCT n.namespace AS namespace
  UNION MATCH (n:State) WHERE n.namespace IS NOT NULL RETURN DISTINCT n.namespace AS namespace
  UNION MATCH (n:Episode) WHERE n.namespace IS NOT NULL RETURN DISTINCT n.namespace AS namespace
  UNION MATCH (n:SemanticUnit) WHERE n.namespace IS NOT NULL RETURN DISTINCT n.namespace AS namespace
  UNION MATCH (n:Theme) WHERE n.namespace IS NOT NULL RETURN DISTINCT n.namespace AS namespace
}
RETURN DISTINCT namespace
ORDER BY namespace

// description: which of the given events (the recall's candidates) occurred inside the half-open range [$start, $end) a question names (epoch microseconds of the UTC instants; occurred_at compared as its instant, whatever its offset)
// params: namespace, event_ids, start, end
// returns: id
// mode: read
// values: plain
UNWIND $event_ids AS eid
MATCH (e:Event {id: eid})
USING INDEX e:Event(id)
WHERE e.namespace = $namespace
  AND $start <= e.occurred_at.epochMillis * 1000 + e.occurred_at.microsecond % 1000 < $end
RETURN e.id AS id

// description: which of the given events (the recall's candidates) occurred inside [$start, $end] (a date range the question names)
// params: namespace, event_ids, start, end
// returns: id
// mode: read
// values: plain
UNWIND $event_ids AS eid
MATCH (e:Event {id: eid})
USING INDEX e:Event(id)
WHERE e.namespace = $namespace AND $start <= e.occurred_at <= $end
RETURN e.id AS id

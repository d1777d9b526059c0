// description: test-only: drop cached plans so EXPLAIN plans with current statistics
// params: none
// returns: cleared
// mode: write
CALL db.clearQueryCaches() YIELD value
RETURN value AS cleared

// description: wait until every index is ONLINE (fails when one is FAILED or the timeout passes), so the first query after migrate is planned with its indexes
// params: timeout_seconds
// returns: none
// mode: read
CALL db.awaitIndexes($timeout_seconds)

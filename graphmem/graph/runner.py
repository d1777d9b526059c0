"""The one query runner: named queries only, managed transactions, causal chaining by
bookmarks, translated errors."""

from __future__ import annotations

import contextlib

import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import neo4j
from neo4j import exceptions as ne
from neo4j.api import BookmarkManager

from graphmem import telemetry
from graphmem.errors import QueryError, InvalidInputError, translate_neo4j_error
from graphmem.graph.registry import CypherQuery, CypherRegistry

Record = dict[str, Any]

logger = logging.getLogger(__name__)
_T = TypeVar("_T")


class BoltList(list):
    """A list query parameter whose ``repr`` is its length: packed and sent exactly as a list.

    The neo4j driver formats every RUN message's parameters with ``repr`` for its debug log
    before the logger checks its level (``Bolt5x*.run``, neo4j 6.1 to 6.4), on every query. For
    a batch of vectors that formatting is most of the client's time: a query given 419 rows of
    384 floats spent 144 of its 161 ms formatting them. With every list parameter a
    :class:`BoltList` the driver's debug log shows ``<list of N>`` in its place.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<list of {len(self)}>"


def bolt_params(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with every list (or tuple) value a :class:`BoltList` (shallow: the items are
    the same objects); other values unchanged."""
    return {k: BoltList(v) if isinstance(v, (list, tuple)) else v for k, v in params.items()}


class QueryRunner:
    """Runs registry queries by name on one database.

    Reads go through ``session.execute_read`` and writes through ``session.execute_write``, so a
    cluster routes them (``neo4j://`` / ``neo4j+s://``: writes to the leader, reads to
    followers or read replicas) and transient errors (deadlocks, leader changes) are retried by
    the driver's managed transactions. Neo4j errors are translated into :mod:`graphmem.errors`.

    **Read-your-writes.** Every call opens a new session, and every session of this runner
    shares one bookmark manager (``neo4j.GraphDatabase.bookmark_manager()``, or the one passed
    in): a session starts with the bookmarks of the transactions committed before it through
    this runner, and the server does not begin it until it has applied them. So a read after a
    write, on any cluster member, sees that write; facades made with
    :meth:`graphmem.GraphMemory.scoped` share their parent's runner and with it the bookmark
    manager. Threads may share a runner (the manager is thread-safe); each thread's sessions
    then wait for every write committed through the runner before they start. On a single
    instance (``bolt://``) the bookmarks are always already applied and cost one small field
    per request. Another runner has bookmarks of its own and sees this runner's writes once the
    member it reads from has applied them; give a runner of the same process the same
    ``bookmark_manager=`` to chain the two (across processes graphmem passes no bookmarks).

    **Retries.** :meth:`retry_stats` counts transaction functions the driver ran again after a
    retryable error (deadlock, transient, leader switch), with the error codes seen.

    Args:
        driver: an open ``neo4j.Driver`` (borrowed: :meth:`close` does not close it unless
            ``owns_driver``).
        registry: the loaded Cypher registry.
        database: database name (``"neo4j"`` on Community).
        owns_driver: close the driver in :meth:`close`.
        bookmark_manager: a ``neo4j.BookmarkManager`` to share with other runners (e.g. one
            with another registry on the same driver); default: a new one for this runner.
    """

    def __init__(
        self,
        driver: neo4j.Driver,
        registry: CypherRegistry,
        database: str = "neo4j",
        owns_driver: bool = False,
        bookmark_manager: BookmarkManager | None = None,
    ):
        self.driver = driver
        self.registry = registry
        self.database = database
        self._owns_driver = owns_driver
        self.bookmark_manager = (bookmark_manager if bookmark_manager is not None
                                 else neo4j.GraphDatabase.bookmark_manager())
        self._shared: dict[str, Any] = {}
        self._shared_lock = threading.Lock()
        self._stats_lock = threading.Lock()
        self._retries = 0
        self._retry_codes: Counter[str] = Counter()

    def shared(self, key: str, factory: Callable[[], _T]) -> _T:
        """The object kept once per runner under ``key``, built by ``factory()`` on first use
        (thread-safe): how the layers above keep state per connection without this layer
        knowing them (the retrieval engine's vector and alias caches,
        :func:`graphmem.retrieval.vectors.vector_cache_of`), shared by every facade on this
        runner."""
        found = self._shared.get(key)
        if found is None:
            with self._shared_lock:
                found = self._shared.get(key)
                if found is None:
                    found = self._shared[key] = factory()
        return found

    def _check(self, query: CypherQuery, params: dict[str, Any]) -> None:
        given = set(params)
        if given != query.params:
            raise QueryError(
                f"query {query.name!r} takes params {sorted(query.params)}, got {sorted(given)}"
            )

    def read(self, name: str, /, **params: Any) -> list[Record]:
        """Run read query ``name`` and return its records as dicts.

        Raises:
            UnknownQueryError, QueryError (wrong params or rejected), DatabaseError subclasses.
        """
        return self._run(name, "read", params)

    def write(self, name: str, /, **params: Any) -> list[Record]:
        """Run write query ``name`` in one managed write transaction; records as dicts."""
        return self._run(name, "write", params)

    def run(self, name: str, /, **params: Any) -> list[Record]:
        """Run ``name`` in the transaction kind its header declares."""
        return self._run(name, self.registry.get(name).mode, params)

    def _run(self, name: str, mode: str, params: dict[str, Any]) -> list[Record]:
        query = self.registry.get(name)
        if query.mode != mode:
            raise QueryError(f"query {name!r} is a {query.mode} query, run as {mode}")
        self._check(query, params)

        sent = bolt_params(params)

        def work(tx: neo4j.ManagedTransaction) -> list[Record]:
            if query.plain:  # '// values: plain': no graph entity to convert
                records = [dict(record.items()) for record in tx.run(query.text, sent)]
            else:
                records = [record.data() for record in tx.run(query.text, sent)]
            telemetry.db_rows(len(records))
            return records

        return self.transaction(mode, work, name=name)

    def write_many(self, steps: Iterable[tuple[str, dict[str, Any]]]) -> list[list[Record]]:
        """Run several write queries in ONE transaction: all land or none (a unit of work).

        Args:
            steps: ``(query name, params)`` pairs, run in order.
        Returns:
            Each step's records.
        """
        prepared = []
        for name, params in steps:
            query = self.registry.get(name)
            if query.mode != "write":
                raise QueryError(f"query {name!r} is a read query, used in write_many")
            self._check(query, params)
            prepared.append((query, bolt_params(params)))

        def work(tx: neo4j.ManagedTransaction) -> list[list[Record]]:
            answers = [[r.data() for r in tx.run(q.text, p)] for q, p in prepared]
            telemetry.db_rows(sum(len(a) for a in answers))
            return answers

        label = ",".join(q.name for q, _ in prepared[:3])
        return self.transaction("write", work, name=label)

    def run_in(self, tx: Any, name: str, /, **params: Any) -> list[Record]:
        """Run registry query ``name`` inside the open transaction ``tx`` (the argument of a
        :meth:`transaction` ``work`` function): a unit of work that reads, computes and writes in
        one transaction. Same parameter check as :meth:`read` / :meth:`write`; a read query may
        run inside a write transaction.

        Raises:
            UnknownQueryError, QueryError (wrong params). Database errors surface from
            :meth:`transaction`, which translates them.
        """
        query = self.registry.get(name)
        self._check(query, params)
        records = [record.data() for record in tx.run(query.text, bolt_params(params))]
        telemetry.db_rows(len(records))
        return records

    @staticmethod
    def waiting() -> contextlib.AbstractContextManager[None]:
        """Mark time a transaction's ``work`` spends off the database (e.g. waiting for an
        encoder thread before its vector rows): left out of the transaction's database time in
        the telemetry (:func:`graphmem.telemetry.db_waiting`); a timing wrapper
        (:class:`graphmem.evaluation.timing.TimedRunner`) counts it as waiting, not writing."""
        return telemetry.db_waiting()

    def transaction(self, mode: str, work: Callable[[neo4j.ManagedTransaction], Any], name: str | None = None) -> Any:
        """Run ``work(tx)`` in a managed read or write transaction with error translation, in
        a new session on this runner's bookmark manager (it starts after every transaction
        committed through the runner and records its own commit).

        ``work`` must only run registry queries (``self.registry.get(...).text``); the driver
        may run it more than once (retries), so it must not have side effects outside ``tx``.

        Every query of graphmem comes through here: one ``graphmem.db`` span per call (query
        name, mode, rows returned, retries; :mod:`graphmem.telemetry`).

        Raises:
            InvalidInputError: a string parameter cannot be encoded as UTF-8 (a lone surrogate).
            DatabaseError subclasses: translated Neo4j/driver errors.
        """
        with telemetry.db_span(name, mode, self.database) as call:
            return self._transaction(mode, work, name, call)

    def _transaction(self, mode: str, work: Callable[[neo4j.ManagedTransaction], Any],
                     name: str | None, call: Any) -> Any:
        attempts = 0

        def attempt(tx: neo4j.ManagedTransaction) -> Any:
            nonlocal attempts
            attempts += 1
            call.rows, call.retries = 0, attempts - 1  # the rows of the last attempt
            if attempts > 1:
                self._count_retry(name)
            try:
                return work(tx)
            except ne.Neo4jError as exc:
                if exc.is_retryable():
                    self._count_code(exc.code or type(exc).__name__)
                raise
            except ne.DriverError as exc:
                if exc.is_retryable():
                    self._count_code(type(exc).__name__)
                raise

        try:
            with self.driver.session(database=self.database,
                                     bookmark_manager=self.bookmark_manager) as session:
                if mode == "read":
                    return session.execute_read(attempt)
                return session.execute_write(attempt)
        except UnicodeEncodeError as exc:  # a lone surrogate in a parameter: Bolt sends UTF-8
            raise InvalidInputError(
                f"a parameter of query {name!r} is not valid Unicode: {exc.object[exc.start]!r} at"
                f" position {exc.start} cannot be encoded as UTF-8; nothing was written"
            ) from None
        except ne.Neo4jError as exc:
            raise translate_neo4j_error(exc, name) from exc
        except ne.DriverError as exc:
            raise translate_neo4j_error(exc, name) from exc

    def _count_retry(self, name: str | None) -> None:
        with self._stats_lock:
            self._retries += 1
        logger.debug("transaction %s retried by the driver", name)

    def _count_code(self, code: str) -> None:
        with self._stats_lock:
            self._retry_codes[code] += 1

    def retry_stats(self) -> dict[str, Any]:
        """Transaction retries since this runner was made: ``{"retries": n, "by_code":
        {Neo4j error code: n}}``. ``retries`` counts re-runs of a transaction function by the
        driver (one per extra attempt, whatever failed: the work or its commit);
        ``by_code`` counts the retryable errors raised inside the work (e.g.
        ``Neo.TransientError.Transaction.DeadlockDetected``; a failed commit is not seen
        there). Thread-safe; a snapshot."""
        with self._stats_lock:
            return {"retries": self._retries, "by_code": dict(self._retry_codes)}

    def close(self) -> None:
        """Close the driver if this runner owns it."""
        if self._owns_driver:
            self.driver.close()

    def __enter__(self) -> QueryRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

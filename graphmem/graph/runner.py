"""The one query runner: named queries only, managed transactions, translated errors."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import neo4j
from neo4j import exceptions as ne

from graphmem.errors import QueryError, InvalidInputError, translate_neo4j_error
from graphmem.graph.registry import CypherQuery, CypherRegistry

Record = dict[str, Any]


class QueryRunner:
    """Runs registry queries by name on one database.

    Reads go through ``session.execute_read`` and writes through ``session.execute_write``, so a
    cluster routes them and transient errors (deadlocks, leader changes) are retried by the
    driver's managed transactions. Neo4j errors are translated into :mod:`graphmem.errors`.

    Args:
        driver: an open ``neo4j.Driver`` (borrowed: :meth:`close` does not close it unless
            ``owns_driver``).
        registry: the loaded Cypher registry.
        database: database name (``"neo4j"`` on Community).
        owns_driver: close the driver in :meth:`close`.
    """

    def __init__(
        self,
        driver: neo4j.Driver,
        registry: CypherRegistry,
        database: str = "neo4j",
        owns_driver: bool = False,
    ):
        self.driver = driver
        self.registry = registry
        self.database = database
        self._owns_driver = owns_driver

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

        def work(tx: neo4j.ManagedTransaction) -> list[Record]:
            return [record.data() for record in tx.run(query.text, params)]

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
            prepared.append((query, params))

        def work(tx: neo4j.ManagedTransaction) -> list[list[Record]]:
            return [[r.data() for r in tx.run(q.text, p)] for q, p in prepared]

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
        return [record.data() for record in tx.run(query.text, params)]

    def transaction(self, mode: str, work: Callable[[neo4j.ManagedTransaction], Any], name: str | None = None) -> Any:
        """Run ``work(tx)`` in a managed read or write transaction with error translation.

        ``work`` must only run registry queries (``self.registry.get(...).text``).

        Raises:
            InvalidInputError: a string parameter cannot be encoded as UTF-8 (a lone surrogate).
            DatabaseError subclasses: translated Neo4j/driver errors.
        """
        try:
            with self.driver.session(database=self.database) as session:
                if mode == "read":
                    return session.execute_read(work)
                return session.execute_write(work)
        except UnicodeEncodeError as exc:  # a lone surrogate in a parameter: Bolt sends UTF-8
            raise InvalidInputError(
                f"a parameter of query {name!r} is not valid Unicode: {exc.object[exc.start]!r} at"
                f" position {exc.start} cannot be encoded as UTF-8; nothing was written"
            ) from None
        except ne.Neo4jError as exc:
            raise translate_neo4j_error(exc, name) from exc
        except ne.DriverError as exc:
            raise translate_neo4j_error(exc, name) from exc

    def close(self) -> None:
        """Close the driver if this runner owns it."""
        if self._owns_driver:
            self.driver.close()

    def __enter__(self) -> QueryRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

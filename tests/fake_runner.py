"""A query runner without a database, for unit tests of the memories' orchestration.

:class:`FakeRunner` looks every query up in the real :class:`~graphmem.graph.registry.CypherRegistry`
(an unknown name raises ``UnknownQueryError``, wrong params raise ``QueryError`` exactly as the
real runner does, a write query sent through ``read`` raises too), records each call as
``(query name, params)`` and answers with scripted rows per query name.
:class:`HashEmbedder` gives deterministic unit vectors without a model.
"""

from __future__ import annotations

import contextlib

import hashlib
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from graphmem.errors import QueryError
from graphmem.graph.registry import CypherRegistry

Rows = list[dict[str, Any]]
Script = Rows | Callable[[dict[str, Any]], Rows]

_REGISTRY: CypherRegistry | None = None


def registry() -> CypherRegistry:
    """The real registry of the repository's cypher/ folder (loaded once)."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = CypherRegistry.load()
    return _REGISTRY


class FakeRunner:
    """Records named queries and answers with scripted rows.

    Args:
        script: ``{query name: rows}`` or ``{query name: callable(params) -> rows}``; a name
            without a script answers ``[]``.
    Attributes:
        calls: ``(name, params)`` of every query in order (``write_many`` steps included).
        transactions: the query names of each ``write_many`` call or :meth:`transaction`, one
            list per transaction.
    """

    def __init__(self, script: dict[str, Script] | None = None):
        self.registry = registry()
        self.script: dict[str, Script] = dict(script or {})
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.transactions: list[list[str]] = []

    def names(self) -> list[str]:
        """Names of the queries run so far, in order."""
        return [name for name, _ in self.calls]

    def _answer(self, name: str, mode: str, params: dict[str, Any]) -> Rows:
        query = self.registry.get(name)  # UnknownQueryError for a name not in cypher/
        if set(params) != query.params:
            raise QueryError(f"query {name!r} takes params {sorted(query.params)}, "
                             f"got {sorted(params)}")
        if mode == "read" and query.mode == "write":
            raise QueryError(f"query {name!r} is a write query, sent as a read")
        self.calls.append((name, params))
        answer = self.script.get(name, [])
        rows = answer(params) if callable(answer) else answer
        return [dict(row) for row in rows]

    def read(self, name: str, /, **params: Any) -> Rows:
        return self._answer(name, "read", params)

    def write(self, name: str, /, **params: Any) -> Rows:
        return self._answer(name, "write", params)

    def run(self, name: str, /, **params: Any) -> Rows:
        return self._answer(name, self.registry.get(name).mode, params)

    def write_many(self, steps: Iterable[tuple[str, dict[str, Any]]]) -> list[Rows]:
        steps = list(steps)
        self.transactions.append([name for name, _ in steps])
        return [self._answer(name, "write", params) for name, params in steps]

    @staticmethod
    def waiting() -> contextlib.AbstractContextManager[None]:
        """As :meth:`graphmem.graph.runner.QueryRunner.waiting`: a no-op."""
        return contextlib.nullcontext()

    def transaction(self, mode: str, work: Callable[[Any], Any], name: str | None = None) -> Any:
        """Run ``work`` with this runner as its transaction (see :meth:`run_in`); the names of
        the queries it runs are one entry of ``transactions``."""
        names: list[str] = []
        self.transactions.append(names)
        self._open = names
        try:
            return work(self)
        finally:
            self._open = None

    def run_in(self, tx: Any, name: str, /, **params: Any) -> Rows:
        """A query inside :meth:`transaction` (any mode, as in a real write transaction)."""
        if getattr(self, "_open", None) is not None:
            self._open.append(name)
        return self._answer(name, self.registry.get(name).mode, params)


class HashEmbedder:
    """Deterministic ``(n, dimension)`` float32 unit rows from a SHA-1 of each text."""

    def __init__(self, dimension: int = 8):
        self.dimension = dimension

    def embed_documents(self, texts: Iterable[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha1(text.encode("utf-8")).digest()[:8], "little")
            vec = np.random.default_rng(seed).standard_normal(self.dimension)
            rows.append(vec / np.linalg.norm(vec))
        return np.asarray(rows, dtype=np.float32).reshape(-1, self.dimension)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def unit_columns(unit: dict[str, Any]) -> list[Any]:
    """A unit dict as the round query sends it (``retrieval/search_units``): a list in
    :data:`graphmem.retrieval.engine.UNIT_COLUMNS` order (missing keys are None)."""
    from graphmem.retrieval.engine import UNIT_COLUMNS

    return [unit.get(column) for column in UNIT_COLUMNS]

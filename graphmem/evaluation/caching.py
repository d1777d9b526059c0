"""A read cache for scoring one frozen database under many retrieval settings (evaluation only).

:class:`CachedReads` wraps a query runner (``GraphMemory.scoped(ns, wrap_runner=CachedReads)``):
a read query asked twice with the same parameters is answered from memory the second time, so
the grid of settings ``graphmem eval`` scores pays each distinct round query once. Writes go
through unchanged and empty the cache. Use it only while nothing else writes the namespaces read.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from typing import Any

logger = logging.getLogger(__name__)


class CachedReads:
    """Memoises ``read(name, **params)`` by query name and parameter values; everything else
    is delegated to the wrapped runner (a write clears the cache)."""

    def __init__(self, runner: Any):
        self._runner = runner
        self._cache: dict[str, list[dict[str, Any]]] = {}
        self.hits = 0
        self.misses = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runner, name)

    @staticmethod
    def _key(name: str, params: dict[str, Any]) -> str:
        blob = pickle.dumps((name, sorted(params.items())), protocol=pickle.HIGHEST_PROTOCOL)
        return hashlib.sha1(blob).hexdigest()

    def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        key = self._key(name, params)
        if key in self._cache:
            self.hits += 1
            return [dict(row) for row in self._cache[key]]
        self.misses += 1
        rows = self._runner.read(name, **params)
        self._cache[key] = [dict(row) for row in rows]
        return rows

    def write(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self._cache.clear()
        return self._runner.write(name, **params)

    def write_many(self, steps: Any) -> Any:
        self._cache.clear()
        return self._runner.write_many(steps)

    def transaction(self, mode: str, work: Any, name: str | None = None) -> Any:
        if mode != "read":
            self._cache.clear()
        return self._runner.transaction(mode, work, name)

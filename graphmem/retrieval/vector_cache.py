"""The process-wide store of :class:`graphmem.retrieval.vectors.NamespaceVectors` entries: a
thread-safe, size-bounded LRU per query runner with a one-thread background loader (freshness,
loading and scoring rules: :mod:`graphmem.retrieval.vectors`)."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.retrieval.vectors import NamespaceVectors

logger = logging.getLogger(__name__)

#: Bytes of vectors the process keeps (least recently used namespaces dropped): 256 MiB, about
#: 87 namespaces of 2,000 units of 384 floats (float32).
CACHE_BYTES = 256 * 1024 * 1024


class VectorCache:
    """A thread-safe LRU of :class:`NamespaceVectors` bounded by ``max_bytes``; it also counts
    the misses of each key (:data:`LOAD_AFTER_MISSES`)."""

    def __init__(self, max_bytes: int = CACHE_BYTES):
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Any, NamespaceVectors] = OrderedDict()
        self._misses: dict[Any, int] = {}
        self._lock = threading.Lock()
        self._loading: dict[Any, Future[Any]] = {}
        self._loader: ThreadPoolExecutor | None = None

    def in_background(self, key: Any, load: Callable[[], Any]) -> None:
        """Run ``load()`` in the cache's loader thread unless a load of ``key`` is running; its
        errors are logged (the recalls keep using the database)."""
        with self._lock:
            if key in self._loading and not self._loading[key].done():
                return
            if self._loader is None:
                self._loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-vectors")

            def run() -> None:
                try:
                    load()
                except Exception as exc:  # the database path stays correct without the cache
                    logger.warning("vector cache load of %s failed: %s", key, exc)

            self._loading[key] = self._loader.submit(run)

    def wait(self) -> None:
        """Wait for the background loads running now."""
        with self._lock:
            running = list(self._loading.values())
        for future in running:
            future.result()

    def get(self, key: Any) -> NamespaceVectors | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def miss(self, key: Any) -> int:
        """Count a miss of ``key``; returns its misses so far."""
        with self._lock:
            self._misses[key] = self._misses.get(key, 0) + 1
            if len(self._misses) > 10_000:
                self._misses.clear()
            return self._misses[key]

    def put(self, key: Any, entry: NamespaceVectors) -> None:
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            total = sum(e.nbytes for e in self._entries.values())
            while total > self.max_bytes and len(self._entries) > 1:
                _, old = self._entries.popitem(last=False)
                total -= old.nbytes

    def drop(self, key: Any) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._misses.clear()


__all__ = ["CACHE_BYTES", "VectorCache"]

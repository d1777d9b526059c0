"""Timing proxies for the benchmark: a runner and an embedder that add up wall seconds spent in
database calls and in model encoding, so ingest time splits into encode / graph writes / rest."""

from __future__ import annotations

import contextlib
import logging
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from graphmem.embeddings import Embedder

logger = logging.getLogger(__name__)


class TimedRunner:
    """Wraps the facade's query runner (``GraphMemory.scoped(ns, wrap_runner=TimedRunner)``);
    ``seconds["read"|"write"]`` and ``calls`` add up per mode; ``seconds["wait"]`` is time inside
    a transaction the store marked as waiting for something else (:meth:`waiting`, e.g. the
    encoder thread), which its mode does not count. ``statement_seconds[name]`` adds up the
    seconds of each registry query run inside a transaction (:meth:`run_in`: sent, executed and
    its records read); a write transaction's seconds beyond its statements' are its begin, the
    store's planning between statements and its commit (where Neo4j applies the index updates).

    Everything else is delegated, so memories and stores use it like the runner.
    """

    def __init__(self, runner: Any):
        self._runner = runner
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.statement_seconds: dict[str, float] = defaultdict(float)
        self._waited = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runner, name)

    def _timed(self, mode: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        began, waited = time.perf_counter(), self._waited
        try:
            return fn(*args, **kwargs)
        finally:
            inside = self._waited - waited
            self.seconds[mode] += time.perf_counter() - began - inside
            self.seconds["wait"] += inside
            self.calls[mode] += 1

    @contextlib.contextmanager
    def waiting(self) -> Any:
        """Time inside a transaction spent off the database (the store waits for its encoder):
        added to ``seconds["wait"]`` and left out of the transaction's mode."""
        began = time.perf_counter()
        try:
            yield
        finally:
            self._waited += time.perf_counter() - began

    def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        return self._timed("read", self._runner.read, name, **params)

    def write(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        return self._timed("write", self._runner.write, name, **params)

    def run(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        mode = self._runner.registry.get(name).mode
        return self._timed(mode, self._runner.run, name, **params)

    def write_many(self, steps: Any) -> Any:
        return self._timed("write", self._runner.write_many, steps)

    def transaction(self, mode: str, work: Any, name: str | None = None) -> Any:
        return self._timed(mode, self._runner.transaction, mode, work, name)

    def run_in(self, tx: Any, name: str, /, **params: Any) -> list[dict[str, Any]]:
        began = time.perf_counter()
        try:
            return self._runner.run_in(tx, name, **params)
        finally:
            self.statement_seconds[name] += time.perf_counter() - began


class EmbedderProxy:
    """Base of the embedder wrappers below: holds the wrapped :class:`Embedder`, delegates
    ``dimension``, ``embed_query`` and every other attribute to it."""

    def __init__(self, embedder: Embedder):
        self._embedder = embedder

    @property
    def dimension(self) -> int:
        return self._embedder.dimension

    def __getattr__(self, name: str) -> Any:
        return getattr(self._embedder, name)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embedder.embed_query(text)


class TimedEmbedder(EmbedderProxy):
    """Wraps an :class:`Embedder`; ``seconds`` and ``texts`` add up over all encode calls."""

    def __init__(self, embedder: Embedder):
        super().__init__(embedder)
        self.seconds = 0.0
        self.texts = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        began = time.perf_counter()
        try:
            return self._embedder.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - began
            self.texts += len(texts)

    def embed_query(self, text: str) -> np.ndarray:
        began = time.perf_counter()
        try:
            return self._embedder.embed_query(text)
        finally:
            self.seconds += time.perf_counter() - began
            self.texts += 1


class ReplayEmbedder(EmbedderProxy):
    """Wraps an :class:`Embedder` and remembers every document vector it returns, by text: a
    text seen before is answered from memory, so an ingest repeated through it spends (almost)
    nothing encoding and its graph writes are timed without an encoder competing for the CPU.
    ``encoded`` counts the texts actually sent to the model."""

    def __init__(self, embedder: Embedder):
        super().__init__(embedder)
        self._vectors: dict[str, np.ndarray] = {}
        self.encoded = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), d) float32`` rows, new texts encoded by the wrapped embedder."""
        if texts and not any(t in self._vectors for t in texts):  # as the model alone would
            vectors = self._embedder.embed_documents(texts)
            self._vectors.update(zip(texts, vectors))
            self.encoded += len(texts)
            return vectors
        new = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if new:
            self._vectors.update(zip(new, self._embedder.embed_documents(new)))
            self.encoded += len(new)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts]).astype(np.float32, copy=False)

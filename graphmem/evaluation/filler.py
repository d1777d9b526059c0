"""Filler tenants of ``graphmem bench``: perturbed copies of real LoCoMo turns written straight to
the store until each memory holds the requested number of units (no encoding: vectors perturbed).

Filler = the LoCoMo turns repeated across namespaces ``<run>-fill-<j>``: text perturbed (two words
swapped, a variant tag appended) and embedding perturbed instead of re-encoded —
``v' = normalise(v + ε)``, ``ε ~ N(0, σ² I)``, σ = :data:`SIGMA` per dimension (cosine to the
original ≈ 0.93 at 384 dims) — with the retrieval engine's lexical properties, so the filler
crowds the vector and the full-text indexes as real tenants would.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.evaluation.baselines import VectorBaseline
from graphmem.evaluation.locomo import turn_text
from graphmem.facade import GraphMemory
from graphmem.names import node_id
from graphmem.retrieval import unit_rows
from graphmem.timeparse import time_param

logger = logging.getLogger(__name__)

SIGMA = 0.02
BATCH = 1000


def perturb_vectors(base: np.ndarray, rng: np.random.Generator, sigma: float = SIGMA) -> np.ndarray:
    """``normalise(base + N(0, sigma²))`` row-wise: ``(n, d)`` float32 unit rows."""
    noisy = base + rng.normal(0.0, sigma, size=base.shape)
    return (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)


def perturb_text(text: str, rng: np.random.Generator, variant: int) -> str:
    """Swap two adjacent words (when there are two) and append ``[v<variant>]``."""
    words = text.split()
    if len(words) > 2:
        i = int(rng.integers(0, len(words) - 1))
        words[i], words[i + 1] = words[i + 1], words[i]
    return " ".join(words) + f" [v{variant}]"


class Filler:
    """Writes perturbed copies of the base turns as filler tenants for both memories and the
    baseline until each holds a requested number of units."""

    def __init__(self, mem: GraphMemory, vector: VectorBaseline, prefix: str, turns: Sequence[Any],
                 conv_ids: Sequence[str], vectors: np.ndarray, seed: int):
        self.mem, self.vector, self.prefix = mem, vector, prefix
        self.turns, self.conv_ids, self.vectors = list(turns), list(conv_ids), vectors
        self.rng = np.random.default_rng(seed)
        self.units = {"state": 0, "associative": 0, "vector": 0}
        self.namespaces: list[str] = []
        self.write_seconds = 0.0

    def _rows(self, ns: str, j: int, n: int) -> tuple[list[dict], list[dict], list[str], np.ndarray]:
        vecs = perturb_vectors(self.vectors[:n], self.rng)
        texts = [perturb_text(turn_text(t), self.rng, j) for t in self.turns[:n]]
        lexical = unit_rows([{"speaker": None, "text": text, "timestamp": t.timestamp}
                             for t, text in zip(self.turns[:n], texts, strict=True)], None, ns)
        events, episodes = [], []
        for i, (t, c, text, v) in enumerate(zip(self.turns[:n], self.conv_ids[:n], texts, vecs, strict=True)):
            emb = v.tolist()
            occurred = time_param(t.timestamp) if isinstance(t.timestamp, datetime) else None
            unit = {key: lexical[i][key] for key in ("lexical_terms", "lexical_length", "ns_token")}
            events.append({"id": node_id(ns, "bench-event", j, i), "conversation": c, "text": text,
                           "speaker": t.speaker, "source_ids": [t.source_id], "occurred_at": occurred,
                           "embedding": emb, **unit})
            episodes.append({"id": node_id(ns, "bench-episode", j, i), "conversation": c, "text": text,
                             "speaker": t.speaker, "source_id": t.source_id, "occurred_at": occurred,
                             "embedding": emb, **unit})
        return events, episodes, texts, vecs

    def fill_to(self, memory_units: dict[str, int], size: int, progress: Any = None) -> None:
        """Add filler until state, associative (``memory_units`` = the tenant's own units) and
        the baseline hold ``size`` units each."""
        while True:
            need = {"state": size - memory_units["state"] - self.units["state"],
                    "associative": size - memory_units["associative"] - self.units["associative"],
                    "vector": size - self.units["vector"]}
            if max(need.values()) <= 0:
                return
            j = len(self.namespaces)
            ns = f"{self.prefix}-fill-{j}"
            self.namespaces.append(ns)
            n = min(len(self.turns), max(need.values()))
            events, episodes, texts, vecs = self._rows(ns, j, n)
            tenant = self.mem.scoped(ns)
            began = time.perf_counter()
            for start in range(0, n, BATCH):
                if need["state"] > start:
                    tenant.query("bench/write_events",
                                 rows=events[start:min(start + BATCH, need["state"])])
                if need["associative"] > start:
                    tenant.query("bench/write_episodes",
                                 rows=episodes[start:min(start + BATCH, need["associative"])])
            self.write_seconds += time.perf_counter() - began
            self.units["state"] += max(0, min(n, need["state"]))
            self.units["associative"] += max(0, min(n, need["associative"]))
            m = max(0, min(n, need["vector"]))
            if m:
                self.vector.add(texts[:m], vecs[:m],
                                [{"conversation": c, "source_id": t.source_id, "namespace": ns}
                                 for t, c in zip(self.turns[:m], self.conv_ids[:m], strict=True)],
                                [f"{ns}:{i}" for i in range(m)], wait=False)
                self.units["vector"] += m
            if progress:
                progress(f"filler {ns}: units {self.units}")



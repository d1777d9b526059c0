"""Insight memory's typed recall options (:class:`~graphmem.recall_options.RecallOptions`)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from graphmem.recall_options import MAX_K, TimeWindowOptions


class InsightRecallOptions(TimeWindowOptions):
    """Options of :meth:`graphmem.insight.memory.InsightMemory.recall` (EvoGraph-Mem eqs. 2, 8
    and 10): similar queries seeding the query subgraph, the conflict penalty λ, a precomputed
    query embedding, and the time window and instant of
    :class:`~graphmem.recall_options.TimeWindowOptions`."""

    memory = "insight"

    query_k: int | None = Field(None, ge=1, le=MAX_K, strict=True,
                                description="similar queries (eq. 2; None: the memory's)")
    lam: float | None = Field(None, ge=0.0, allow_inf_nan=False,
                              description="conflict penalty λ ≥ 0 (eq. 8; None: the memory's)")
    embedding: Any | None = Field(None, description="the query's (d,) float32 embedding, "
                                  "when already computed (None: embedded here)")

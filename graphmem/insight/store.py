"""Database I/O of the insight memory: registry queries by name (``cypher/insight/*``), pydantic
models out. Every query is scoped by the store's namespace."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from graphmem.graph.runner import QueryRunner
from graphmem.insight.models import InsightHistory, InsightItem, InsightState

logger = logging.getLogger(__name__)

Step = tuple[str, dict[str, Any]]


class InsightStore:
    """Reads run at once; writes are returned as ``(query name, params)`` steps so the memory can
    run a whole unit of work in one transaction (``runner.write_many``)."""

    def __init__(self, runner: QueryRunner, namespace: str):
        self.runner = runner
        self.namespace = namespace

    # ---- reads -------------------------------------------------------------------------
    def recall(self, embedding: np.ndarray, query_k: int, lam: float, k: int,
               window: dict[str, int | None] | None = None
               ) -> tuple[list[str], list[str], list[InsightItem]]:
        """Eqs. 2–4, 7–10 in one Cypher query: ``query_k`` similar queries, λ = ``lam``, top
        ``k`` (= B) insights. Returns (seed query ids, expanded query ids, insights by r).
        The seed queries come from an exact cosine scan of the namespace's own queries, so the
        answer does not depend on other namespaces' data. ``window``: ``{"since", "until"}`` in
        epoch microseconds (:func:`graphmem.timeparse.window_params`; None: open) on the
        insights' ``created_at``, plus ``"as_of"`` (epoch microseconds or None,
        :func:`graphmem.time_travel.as_of_param`): insights live then rather than active now."""
        rows = self.runner.read(
            "insight/recall_insights", namespace=self.namespace,
            embedding=[float(x) for x in embedding], k=query_k, b=k, **{"lambda": float(lam)},
            **{"since": None, "until": None, "as_of": None, **(window or {})},
        )
        seeds = rows[0]["seed_query_ids"] if rows else []
        expanded = rows[0]["expanded_query_ids"] if rows else []
        items = [InsightItem(id=r["id"], text=r["content"], score=float(r["r"]), s=r["s"], c=r["c"],
                             r=float(r["r"]), version=r.get("version") or 1,
                             supporting_query_ids=list(r["supporting_query_ids"]),
                             conflicting_query_ids=list(r["conflicting_query_ids"]),
                             source_ids=list(dict.fromkeys([*r["supporting_query_ids"],
                                                            *r["conflicting_query_ids"]])),
                             positive_evidence=r.get("positive_evidence") or 0,
                             negative_evidence=r.get("negative_evidence") or 0)
                 for r in rows]
        return seeds, expanded, items

    def related_queries(self, embedding: np.ndarray, query_id: str, top: int, threshold: float) -> list[dict]:
        """``[{id, similarity}]``: up to ``top`` other queries of the namespace with cosine ≥
        ``threshold`` (in [-1, 1]), best first, ties by id: an exact scan of the namespace's own
        queries, so the RELATED_QUERY edges written from it do not depend on other namespaces."""
        if top <= 0:
            return []
        return self.runner.read(
            "insight/find_related_queries", namespace=self.namespace,
            embedding=[float(x) for x in embedding], query_id=query_id, top=top,
            threshold=float(threshold),
        )

    def get_insights(self, ids: Sequence[str]) -> list[InsightState]:
        """Current state of the insights with these ids (missing ids are simply absent)."""
        if not ids:
            return []
        rows = self.runner.read("insight/get_insights", namespace=self.namespace, ids=list(ids))
        return [InsightState.model_validate(r) for r in rows]

    def history(self, insight_id: str) -> InsightHistory | None:
        """The audit trail of one insight, or None."""
        rows = self.runner.read("insight/get_insight_history", namespace=self.namespace,
                                insight_id=insight_id)
        return InsightHistory.model_validate(rows[0]) if rows else None

    def existing_queries(self, ids: Sequence[str]) -> set[str]:
        """The subset of Query ``ids`` already stored in the namespace."""
        if not ids:
            return set()
        rows = self.runner.read("insight/find_existing_queries", namespace=self.namespace,
                                ids=list(dict.fromkeys(ids)))
        return {r["id"] for r in rows}

    def counts(self) -> dict[str, Any]:
        """Node counts of this namespace's insight memory and decisions by operation."""
        row = self.runner.read("insight/count_insight_graph", namespace=self.namespace)[0]
        row["decisions"] = {d["operation"]: d["count"] for d in row["decisions"]}
        return row

    # ---- write steps ---------------------------------------------------------------------
    def merge_query(self, query_id: str, text: str, status: str, embedding: np.ndarray) -> Step:
        """Step: MERGE the Query node (text, Ψ, ``(d,)`` embedding)."""
        return ("insight/merge_query", dict(namespace=self.namespace, query_id=query_id, text=text,
                                            status=status, embedding=[float(x) for x in embedding]))

    def merge_steps(self, query_id: str, steps: list[dict]) -> Step:
        """Step: MERGE the interaction graph (``[{id, position, content}]``)."""
        return ("insight/merge_steps", dict(namespace=self.namespace, query_id=query_id, steps=steps))

    def merge_related(self, query_id: str, rows: list[dict]) -> Step:
        """Step: MERGE RELATED_QUERY edges to ``[{id, similarity}]``."""
        return ("insight/merge_related_queries",
                dict(namespace=self.namespace, query_id=query_id, rows=rows))

    def evidence(self, query_id: str, insight_ids: Sequence[str], positive: bool) -> Step:
        """Step: add the query to Ω+ (``positive``) or Ω− of each insight, one statement."""
        name = "insight/add_positive_evidence" if positive else "insight/add_negative_evidence"
        return (name, dict(namespace=self.namespace, query_id=query_id,
                           insight_ids=sorted(set(insight_ids))))

    def archive(self, insight_ids: Sequence[str]) -> Step:
        """Step: set z = 0 on the insights (kept, never deleted)."""
        return ("insight/archive_insights",
                dict(namespace=self.namespace, insight_ids=sorted(set(insight_ids))))

    def revise(self, old_id: str, new_id: str, content: str, embedding: np.ndarray) -> Step:
        """Step: new version REVISION_OF the old one, evidence carried, old archived."""
        return ("insight/revise_insight", dict(namespace=self.namespace, old_id=old_id, new_id=new_id,
                                               content=content,
                                               embedding=[float(x) for x in embedding]))

    def add_insight(self, insight_id: str, query_id: str, content: str, embedding: np.ndarray,
                    contextual_ids: Sequence[str]) -> Step:
        """Step: new active insight with Ω+ = {query}, contextualized by ``contextual_ids``."""
        return ("insight/add_insight", dict(namespace=self.namespace, insight_id=insight_id,
                                            query_id=query_id, content=content,
                                            embedding=[float(x) for x in embedding],
                                            contextual_ids=list(contextual_ids)))

    def record_decisions(self, query_id: str, rows: list[dict]) -> Step:
        """Step: one ControllerDecision per row, linked to query and insights."""
        return ("insight/record_decisions",
                dict(namespace=self.namespace, query_id=query_id, rows=rows))

    def contextualize(self, from_id: str, to_id: str, via_query_id: str) -> Step:
        """Step: the CONTEXTUALIZES {via_query} hyper-edge of eq. 5."""
        return ("insight/merge_contextualizes", dict(namespace=self.namespace, from_id=from_id,
                                                     to_id=to_id, via_query_id=via_query_id))

"""Direct edits of the insight graph, by API rather than through the graph controller: evidence,
query nodes, RELATED_QUERY edges, insights and the CONTEXTUALIZES hyper-edge (EvoGraph-Mem
eq. 5). :class:`InsightGraphEdits` is a base of :class:`graphmem.insight.memory.InsightMemory`;
each edit is written in one transaction of the memory's namespace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphmem.errors import EmptyTextError, InvalidInputError
from graphmem.insight.feedback_steps import parse_feedback
from graphmem.insight.models import InsightState, OperationSet
from graphmem.names import node_id

if TYPE_CHECKING:
    from graphmem.embeddings import Embedder
    from graphmem.graph.runner import QueryRunner
    from graphmem.insight.store import InsightStore


class InsightGraphEdits:
    """The direct graph edits of an insight memory (``self`` is a
    :class:`~graphmem.insight.memory.InsightMemory`: its runner, embedder, namespace, store,
    operation set and RELATED_QUERY thresholds)."""

    runner: QueryRunner
    embedder: Embedder
    namespace: str
    store: InsightStore
    operation_set: OperationSet
    related_top: int
    related_threshold: float

    if TYPE_CHECKING:
        def query_id(self, query: str, task_id: str | None = None) -> str: ...

        def _embedding(self, text: str, embedding: np.ndarray | None) -> np.ndarray: ...

    def record_evidence(self, insight_id: str, query_id: str, positive: bool) -> InsightState:
        """Add ``query_id`` to Ω+ (``positive``) or Ω− of one insight, counted in the same single
        Cypher statement (safe under concurrent writers). Idempotent per (insight, query).

        Raises:
            InvalidInputError: the insight or the query is not in this namespace.
        """
        name, params = self.store.evidence(query_id, [insight_id], positive)
        rows = self.runner.write(name, **params)
        if not rows:
            raise InvalidInputError(f"no insight {insight_id!r} / query {query_id!r} in namespace "
                                  f"{self.namespace!r}")
        return self.store.get_insights([insight_id])[0]

    def add_query(self, query: str, status: str, trajectory: Sequence[str] = (), *,
                  task_id: str | None = None, embedding: np.ndarray | None = None) -> str:
        """Record a query node and its interaction graph without running the controller.
        Returns the query id. Raises like
        :meth:`~graphmem.insight.memory.InsightMemory.feedback`."""
        item = parse_feedback({"query": query, "status": status, "trajectory": list(trajectory),
                               "task_id": task_id})
        vector = self._embedding(item.query, embedding)
        qid = self.query_id(item.query, item.task_id)
        related = self.store.related_queries(vector, qid, self.related_top, self.related_threshold)
        steps = [self.store.merge_query(qid, item.query, item.status, vector)]
        if item.trajectory:
            steps.append(self.store.merge_steps(qid, [
                {"id": node_id(self.namespace, "step", qid, i), "position": i, "content": t}
                for i, t in enumerate(item.trajectory)]))
        if related:
            steps.append(self.store.merge_related(qid, related))
        self.runner.write_many(steps)
        return qid

    def relate_queries(self, query_id: str, other_ids: Sequence[str]) -> int:
        """Add RELATED_QUERY edges ``query_id → other`` (by API). Returns how many now exist."""
        name, params = self.store.merge_related(
            query_id, [{"id": o, "similarity": None} for o in other_ids])
        rows = self.runner.write(name, **params)
        return int(rows[0]["linked"]) if rows else 0

    def add_insight(self, content: str, supporting_query_ids: Sequence[str]) -> str:
        """Create an active insight by API with Ω+ = the given queries; recorded as an ADD
        decision of controller ``heuristic`` with reason ``api``. Returns the insight id.

        Raises:
            EmptyTextError: empty content. InvalidInputError: no supporting query.
        """
        if not isinstance(content, str) or not content.strip():
            raise EmptyTextError(f"insight content is empty: {content!r}")
        if not supporting_query_ids:
            raise InvalidInputError("an insight needs at least one supporting query (Ω+)")
        first, *rest = supporting_query_ids
        insight_id = node_id(self.namespace, "insight", "api", content)
        vector = self.embedder.embed_documents([content])[0]
        steps = [self.store.add_insight(insight_id, first, content, vector, [])]
        for q in rest:
            steps.append(self.store.evidence(q, [insight_id], positive=True))
        steps.append(self.store.record_decisions(first, [{
            "id": node_id(self.namespace, "decision", first, "api", insight_id),
            "operation": "ADD", "controller": "heuristic", "reason": "api: add_insight",
            "insight_id": None, "result_insight_id": insight_id, "status": None,
            "operation_set": self.operation_set.value}]))
        results = self.runner.write_many(steps)
        if not results[0]:
            raise InvalidInputError(f"query {first!r} is not in namespace {self.namespace!r}")
        return insight_id

    def contextualize(self, from_id: str, to_id: str, via_query_id: str) -> bool:
        """Add the hyper-edge (ι_m, ι_n, q_j) of eq. 5. Returns False if a node is missing."""
        name, params = self.store.contextualize(from_id, to_id, via_query_id)
        return bool(self.runner.write(name, **params))

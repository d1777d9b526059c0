"""``InsightMemory``: EvoGraph-Mem (seed 000) on Neo4j — query graph (eq. 1), editable insight
graph (eqs. 5–6), evidence-aware retrieval (eqs. 2–4, 7–10) and the failure-aware graph
controller (eqs. 11–12)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from graphmem.embeddings import Embedder, validate_vectors
from graphmem.documents import item_document
from graphmem.errors import EmptyTextError, InvalidInputError
from graphmem.graph.runner import QueryRunner
from graphmem.insight.controller import (
    ControllerInput,
    HeuristicInsightController,
    HeuristicPolicy,
    InsightController,
    LLMInsightController,
)
from graphmem.insight.feedback_steps import created_counts, parse_feedback, plan_steps
from graphmem.insight.graph_edits import InsightGraphEdits
from graphmem.insight.models import (
    FeedbackInput,
    FeedbackResult,
    InsightHistory,
    InsightState,
    OperationSet,
    InsightItem,
    RecallParams,
)
from graphmem.insight.store import InsightStore
from graphmem.llm import LLMUsage
from graphmem.memory import (DEFAULT_K, IngestReport, Memory, PathStep, Progress, RecallResult,
                             Round, check_count, check_number)
from graphmem.insight.options import InsightRecallOptions
from graphmem.names import node_id
from graphmem.time_travel import as_of_param, check_as_of
from graphmem.timeparse import window_params

if TYPE_CHECKING:
    from langchain_core.documents import Document

logger = logging.getLogger(__name__)

#: The parametrized result model, built once: pydantic holds parametrized generics weakly, so
#: one built inside a call is collected and built again (~4 ms) by a later call.
InsightRecallResult = RecallResult[InsightItem]




class InsightMemory(InsightGraphEdits, Memory[InsightItem]):
    """Insight memory of one namespace (its direct graph edits: :class:`InsightGraphEdits`).

    Args:
        runner: the query runner.
        embedder: text embedder (vectors of the Query/Insight indexes, e.g. 384 dims).
        namespace: tenant scope of every read and write.
        llm: optional langchain-core ``BaseChatModel``; None → :class:`HeuristicInsightController`.
        operation_set: the controller's allowed operations (ablation switch, default all).
        policy: thresholds of the heuristic controller.
        related_top: RELATED_QUERY edges added at insert to at most this many similar queries…
        related_threshold: …whose cosine similarity (in [-1, 1]) is at least this.
        recall_params: default ``query_k`` (eq. 2), λ (eq. 8) and ``k`` = B (eq. 10).
    Attributes:
        llm_usage: running total of the controller's LLM calls (:class:`LLMAccounting`).
    Raises:
        InvalidInputError: a bad namespace.
    """

    name = "insight"
    options_model = InsightRecallOptions

    def __init__(
        self,
        runner: QueryRunner,
        embedder: Embedder,
        namespace: str = "default",
        llm: Any | None = None,
        *,
        operation_set: OperationSet | str = OperationSet.ALL,
        policy: HeuristicPolicy | None = None,
        related_top: int = 3,
        related_threshold: float = 0.7,
        recall_params: RecallParams | None = None,
    ):
        super().__init__(runner, embedder, namespace, llm)
        self.operation_set = OperationSet(operation_set)
        self.graph_controller: InsightController = (
            LLMInsightController(llm) if llm is not None else HeuristicInsightController(policy))
        self.related_top = related_top
        self.related_threshold = related_threshold
        self.recall_params = recall_params or RecallParams()
        self.store = InsightStore(runner, self.namespace)

    # ---- ids ------------------------------------------------------------------------------
    def query_id(self, query: str, task_id: str | None = None) -> str:
        """Deterministic id of a query node (by ``task_id`` when given, else by text)."""
        return node_id(self.namespace, "query", task_id if task_id is not None else query)

    def _embedding(self, text: str, embedding: np.ndarray | None) -> np.ndarray:
        if embedding is None:
            return self.embedder.embed_query(text)
        return validate_vectors(np.asarray(embedding).reshape(1, -1), self.embedder.dimension)[0]

    # ---- retrieval (eqs. 2–4, 7–10) -------------------------------------------------------
    def recall(self, query: str, k: int = DEFAULT_K, *, query_k: int | None = None,
               lam: float | None = None, embedding: np.ndarray | None = None,
               since: datetime | None = None, until: datetime | None = None,
               as_of: datetime | None = None) -> RecallResult[InsightItem]:
        """Top-``k`` (B of eq. 10) active insights for ``query``, each with s, c, r = s − λc and
        the supporting and conflicting query ids that produced them.

        Args:
            query: the new task's query text.
            k: insights returned, B of eq. 10 (1..200).
            query_k: similar queries seeding the query subgraph (eq. 2, 1..200); None → the
                memory's default.
            lam: λ ≥ 0, the conflict penalty of eq. 8; None → the default.
            embedding: ``(d,)`` float32 vector of ``query`` if already computed.
            since, until: the half-open window ``since <= t < until`` (time-zone-aware
                datetimes; either may be None: open) on when each insight was recorded: the
                ``created_at`` of its Insight node (a revision is a new node, so the time of
                that version). An insight documents a lesson, not a moment of the
                conversation, so the time it was learned is the one it has. Applied in the
                query (the seed queries are those leading to an insight of the window), before
                the top-B cut.
            as_of: answer as at this instant (aware; :mod:`graphmem.time_travel`): insights
                recorded by then and active then (archived later or never), seeded by queries
                recorded by then (narrows ``until``).
        Returns:
            :class:`~graphmem.memory.RecallResult` of :class:`InsightItem` by r (score = r); one
            round ``recall_insights`` with ``details`` seed_query_ids, expanded_query_ids,
            query_k, lam; ``timings`` in ms.
        Raises:
            EmptyTextError, EmbeddingDimensionError, InvalidInputError (k, query_k, λ out of range;
                a naive ``since`` / ``until`` or ``since >= until``, naming the value).
        """
        began = time.perf_counter()
        if not isinstance(query, str) or not query.strip():
            raise EmptyTextError(f"recall query is empty: {query!r}")
        check_count("k", k)
        query_k = check_count("query_k", query_k if query_k is not None
                              else self.recall_params.query_k)
        lam = check_number("lam", self.recall_params.lam if lam is None else lam, low=0.0)
        since, until, as_of = check_as_of(since, until, as_of)
        window = {**window_params(since, until), "as_of": as_of_param(as_of)}
        vector = self._embedding(query, embedding)
        embedded = time.perf_counter()
        seeds, expanded, insights = self.store.recall(vector, query_k, float(lam), k, window)
        for item in insights:
            item.path = self._path(query, item, seeds, expanded)
        done = time.perf_counter()
        logger.debug("insight recall: %d seeds, %d expanded, %d insights", len(seeds),
                     len(expanded), len(insights))
        return InsightRecallResult(
            memory=self.name, namespace=self.namespace, query=query, items=insights,
            rounds=[Round(number=1, action="recall_insights",
                          added=[i.id for i in insights],
                          details={"seed_query_ids": seeds, "expanded_query_ids": expanded,
                                   "query_k": query_k, "lam": float(lam)})],
            controller=self.controller,
            timings={"embed": round((embedded - began) * 1000, 3),
                     "search": round((done - embedded) * 1000, 3),
                     "total": round((done - began) * 1000, 3)})

    @staticmethod
    def _path(query: str, item: InsightItem, seeds: list[str],
              expanded: list[str]) -> list[PathStep]:
        """question -> the query that reached the insight -> the insight (eqs. 2–4, 7)."""
        steps = [PathStep(action="ask", node="question", id="question", text=query[:200])]
        seed_set = set(seeds)
        for ids, edge in ((item.supporting_query_ids, "SUPPORTS"),
                          (item.conflicting_query_ids, "CONFLICTS_WITH")):
            via = [q for q in ids if q in seed_set] or [q for q in ids if q in expanded]
            if via:
                action = "similar_query" if via[0] in seed_set else "RELATED_QUERY"
                return [*steps, PathStep(action=action, node="query", id=via[0]),
                        PathStep(action=edge, node="insight", id=item.id, text=item.text[:120])]
        return [*steps, PathStep(action="SUPPORTS", node="insight", id=item.id,
                                 text=item.text[:120])]

    # ---- feedback and the graph controller (eqs. 11–12) ------------------------------------
    def feedback(
        self,
        query: str,
        status: str,
        trajectory: Sequence[str] = (),
        retrieved: Sequence[str | InsightItem] | None = None,
        *,
        task_id: str | None = None,
        operation_set: OperationSet | str | None = None,
        embedding: np.ndarray | None = None,
    ) -> FeedbackResult:
        """Record the task (query node + interaction graph + RELATED_QUERY edges), run the graph
        controller on the retrieved insights, and write its plan — all in ONE transaction.

        Evidence: KEEP adds the query to Ω+ (resolved) or Ω− (failed); ARCHIVE adds it to Ω− and
        sets z = 0; REVISE creates a new version (REVISION_OF → old, old archived, Ω+/Ω− carried
        over as they were before this task) and adds the query to Ω+ of both versions (resolved)
        or to Ω− of the old one (failed); ADD creates an insight with Ω+ = {query}, contextualized
        (CONTEXTUALIZES {via_query}) by the insights kept for a resolved task. Every decision is
        recorded as a ControllerDecision.

        Args:
            retrieved: ids (or recall results) of the insights retrieved for this task; None →
                recall them now with the default parameters.
            task_id: natural key of the task (default: the query text).
            operation_set: overrides the memory's operation set for this call.
            embedding: ``(d,)`` vector of ``query`` if already computed.
        Raises:
            EmptyTextError, TrajectoryError, InvalidInputError (bad status; unknown insight id),
            EmbeddingDimensionError, ControllerError (LLM output invalid twice) — all before
            anything is written.
        """
        item = parse_feedback({
            "query": query, "status": status, "trajectory": list(trajectory),
            "retrieved": None if retrieved is None else [
                r.id if isinstance(r, InsightItem) else r for r in retrieved],
            "task_id": task_id,
        })
        return self._feedback(item, OperationSet(operation_set or self.operation_set), embedding)

    def ingest(self, records: Iterable[FeedbackInput | dict], *,
               progress: Progress | None = None) -> IngestReport:
        """:meth:`feedback` for each task record in order, each record its own transaction.

        All records are validated first; a bad one raises before anything is written. A record
        whose query node (by ``task_id``, else text) is already stored is skipped, so ingesting
        the same records again creates nothing.

        Args:
            records: :class:`FeedbackInput` or dicts (query, status, trajectory, retrieved,
                task_id).
            progress: called with 1 after each record's transaction commits (or is skipped).
        Returns:
            :class:`~graphmem.memory.IngestReport`: ``inputs`` records; ``created`` nodes by label
            (``Query``, ``Step``, ``Insight``, ``ControllerDecision``) from the write answers;
            ``skipped["record"]``; ``details``: ``operations`` (decisions by operation),
            ``feedback`` (the per-record :class:`FeedbackResult` dicts).
        Raises:
            like :meth:`feedback`.
        """
        began = time.monotonic()
        parsed = [parse_feedback(x) for x in records]
        report = IngestReport(memory=self.name, namespace=self.namespace,
                              extractor=self.graph_controller.name, inputs=len(parsed),
                              details={"operations": {}, "feedback": []})
        usage = LLMUsage()
        stored = self.store.existing_queries(
            [self.query_id(x.query, x.task_id) for x in parsed])
        for item in parsed:
            qid = self.query_id(item.query, item.task_id)
            if qid in stored:
                report.add_skipped("record", 1)
            else:
                result = self._feedback(item, self.operation_set, None)
                stored.add(qid)
                report.add_created(result.created)
                usage.merge(result.llm_usage)
                ops = report.details["operations"]
                for d in result.decisions:
                    ops[d.operation] = ops.get(d.operation, 0) + 1
                report.details["feedback"].append(result.model_dump(mode="json"))
                logger.debug("insight feedback %s: %s, created %s", qid, item.status, result.created)
            if progress is not None:
                progress(1)
        report.llm_usage = usage
        report.seconds = round(time.monotonic() - began, 3)
        logger.info("insight ingest: %d records, created %s, skipped %s, %.2f s", len(parsed),
                    report.created, report.skipped, report.seconds)
        return report

    def _feedback(self, item: FeedbackInput, operations: OperationSet,
                  embedding: np.ndarray | None) -> FeedbackResult:
        vector = self._embedding(item.query, embedding)
        qid = self.query_id(item.query, item.task_id)
        if item.retrieved is None:
            retrieved_ids = [i.id for i in self.recall(
                item.query, k=self.recall_params.k, embedding=vector).items]
        else:
            retrieved_ids = list(dict.fromkeys(item.retrieved))
        states = {s.id: s for s in self.store.get_insights(retrieved_ids)}
        unknown = [i for i in retrieved_ids if i not in states]
        if unknown:
            raise InvalidInputError(f"retrieved insight id(s) not in namespace "
                                  f"{self.namespace!r}: {unknown}")
        active = [states[i] for i in retrieved_ids if states[i].active]
        skipped = [i for i in retrieved_ids if not states[i].active]
        related = self.store.related_queries(vector, qid, self.related_top, self.related_threshold)

        usage = LLMUsage()
        try:
            plan = self.graph_controller.decide(
                ControllerInput(query=item.query, query_id=qid, status=item.status,
                                trajectory=item.trajectory, retrieved=active,
                                related_query_ids=[r["id"] for r in related]),
                operations, usage)
        except Exception:
            self._account(usage)  # failed attempts cost tokens too: keep them in the total
            raise
        steps, result = plan_steps(self.store, self.embedder, item, qid, vector, related, plan)
        answers = self.runner.write_many(steps)
        result.created = created_counts(steps, answers)
        result.skipped_inactive = skipped
        result.llm_usage = self._account(usage)
        return result

    # ---- reads ----------------------------------------------------------------------------
    def get_insights(self, ids: Sequence[str]) -> list[InsightState]:
        """Current state (κ, z, version, Ω+, Ω−) of insights by id."""
        return self.store.get_insights(ids)

    def history(self, insight_id: str) -> InsightHistory:
        """An insight's audit trail (evidence, revisions, decisions), archived ones included.

        Raises:
            InvalidInputError: no such insight in this namespace.
        """
        found = self.store.history(insight_id)
        if found is None:
            raise InvalidInputError(f"no insight {insight_id!r} in namespace {self.namespace!r}")
        return found

    def counts(self) -> dict[str, int]:
        """Node counts by label (``Query``, ``Step``, ``Insight``, ``ControllerDecision``) of
        this namespace, zeros included; relationships (``REVISION_OF``, ``SUPPORTS``, ...) are
        in :meth:`relationship_counts`."""
        row = self.store.counts()
        return {"Query": row["queries"], "Step": row["steps"],
                "Insight": row["active_insights"] + row["archived_insights"],
                "ControllerDecision": sum(row["decisions"].values())}

    def graph_summary(self) -> dict[str, Any]:
        """Queries, steps, active / archived insights, revisions and decisions by operation."""
        return self.store.counts()

    def documents(self, result: RecallResult[InsightItem]) -> list[Document]:
        """One Document per insight: provenance = Ω+ ∩ Q̃ˢ / Ω− ∩ Q̃ˢ query ids, s, c, version
        and the evidence totals; ``score`` = r."""
        return [
            item_document(
                i, result.namespace, rank, [*i.supporting_query_ids, *i.conflicting_query_ids],
                {"supporting_query_ids": list(i.supporting_query_ids),
                 "conflicting_query_ids": list(i.conflicting_query_ids),
                 "s": i.s, "c": i.c, "version": i.version,
                 "positive_evidence": i.positive_evidence,
                 "negative_evidence": i.negative_evidence})
            for rank, i in enumerate(result.items, start=1)
        ]

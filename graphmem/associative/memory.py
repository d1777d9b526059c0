"""``AssociativeMemory``: MRAgent's Cue–Tag–Content graph in Neo4j and active reconstruction
over it (seed 003, sections 3–6).

    mem = AssociativeMemory(runner, embedder, namespace="locomo")
    mem.ingest_file("locomo-dev.json")
    result = mem.recall("What did Caroline research?", k=10, max_rounds=3)
    result.items[0].text, result.items[0].path, result.rounds

Construction rows: :mod:`graphmem.associative.construction`; the rounds:
:mod:`graphmem.associative.recall`; the final order: :mod:`graphmem.associative.ranking`.
"""

from __future__ import annotations

import contextvars
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.associative.construction import (attach_vectors, build_rows, episodes_of,
                                               plan_units, relink_rows)
from graphmem.associative.extraction import HeuristicCueExtractor
from graphmem.associative.llm_extraction import LLMCueExtractor
from graphmem.associative.models import AssociativeItem, RoundTrace, Structure
from graphmem.associative.ranking import to_items, to_rounds
from graphmem.associative.recall import Reconstructor
from graphmem.associative.reconstruction import ReconstructionConfig, question_cue_texts
from graphmem.associative.routing import HeuristicAssociativeRouter, LLMAssociativeRouter
from graphmem.associative.store import AssociativeStore, StaleTimeline
from graphmem.documents import conversation_fusion_key, item_document
from graphmem.embeddings import Embedder
from graphmem.errors import DatabaseError, EmptyTextError, InvalidInputError
from graphmem.graph.runner import QueryRunner
from graphmem.llm import LLMUsage
from graphmem.memory import (DEFAULT_K, IngestReport, Memory, PathStep, Progress, RecallResult,
                             check_count)
from graphmem.associative.options import AssociativeRecallOptions
from graphmem.names import node_id
from graphmem.retrieval import HybridSearch
from graphmem.retrieval.fusion import FusionParams
from graphmem.retrieval.text import index_terms
from graphmem.time_travel import check_as_of

if TYPE_CHECKING:
    from langchain_core.documents import Document

logger = logging.getLogger(__name__)

#: The parametrized result model, built once: pydantic holds parametrized generics weakly, so
#: one built inside a call is collected and built again (~4 ms) by a later call.
AssociativeRecallResult = RecallResult[AssociativeItem]

#: Label -> key of ``associative/count_structure``.
LABEL_KEYS = {"Cue": "cues", "Tag": "tags", "Episode": "episodes",
              "SemanticUnit": "semantic_units", "Theme": "themes", "Timeline": "timelines"}
#: Turns per progress report (a conversation is one transaction).
PROGRESS_CHUNK = 25
#: Plans of one batch when other writers keep extending its conversation's timeline meanwhile.
PLAN_ATTEMPTS = 8
#: An incremental batch (a resumed ingest, an agent's ``add``) smaller than this makes no themes.
MIN_THEME_EPISODES = 10


class AssociativeMemory(Memory[AssociativeItem]):
    """Associative memory (MRAgent): construction of the Cue–Tag–Content graph and active
    multi-step reconstruction.

    Args:
        runner: the query runner.
        embedder: text embedder (``(n, d) float32`` unit rows; ``d`` = the vector indexes').
        namespace: tenant scope of every read and write.
        llm: optional langchain-core ``BaseChatModel``; with one, extraction and routing use it
            (structured output), without one the heuristic extractor and router run.
        config: reconstruction defaults (:class:`ReconstructionConfig`).
        fusion: the retrieval engine's fusion parameters (α, β, δ; default
            :class:`graphmem.retrieval.fusion.FusionParams`), also settable as ``self.fusion``.
    Raises:
        InvalidInputError: a bad namespace.
    """

    name = "associative"
    options_model = AssociativeRecallOptions
    message_queries = "associative"

    def __init__(self, runner: QueryRunner, embedder: Embedder, namespace: str = "default",
                 llm: Any | None = None, *, config: ReconstructionConfig | None = None,
                 fusion: FusionParams | None = None):
        super().__init__(runner, embedder, namespace, llm)
        self.fusion = fusion or FusionParams()
        self.config = config or ReconstructionConfig()
        self.store = AssociativeStore(runner, self.namespace)
        self.heuristic = HeuristicCueExtractor()
        self._totals: dict[str, int] | None = None  # cached N for idf; reset by ingest

    # ------------------------------------------------------------------ construction
    def check_conversation(self, conversation: Any) -> None:
        """The episode construction's own checks (pure: :func:`~graphmem.associative.
        construction.episodes_of`), before ``mem.add`` writes anything."""
        from graphmem.associative.construction import episodes_of

        episodes_of(conversation)

    def ingest_file(self, path: str | Path, fmt: str = "auto", *,
                    progress: Progress | None = None) -> IngestReport:
        """Read conversations with :func:`graphmem.conversations.read_conversations` and ingest them.

        Raises:
            InputFormatError: a malformed file (nothing is written).
        """
        from graphmem.conversations import read_conversations

        return self.ingest(read_conversations(path, fmt), progress=progress)

    def ingest(self, conversations: Sequence[Any], *,
               progress: Progress | None = None) -> IngestReport:
        """Build the graph of each conversation (MRAgent §3); one transaction per conversation.

        Every input is validated before anything is written. Ids are deterministic; turns
        already stored are skipped one by one (a repeated ingest creates nothing, a resumed one
        builds only the missing turns), and a new first turn is chained after the
        conversation's latest stored episode (incremental adds).

        Args:
            conversations: :class:`graphmem.conversations.Conversation` s.
            progress: called with turns done, in chunks of at most :data:`PROGRESS_CHUNK`
                after each conversation commits.
        Returns:
            :class:`~graphmem.memory.IngestReport`: ``inputs`` turns; ``created`` nodes by label
            (``Episode``, ``Cue``, ``Tag``, ``SemanticUnit``, ``Theme``) from the write queries'
            answers; ``skipped["turn"]``; ``details``: ``conversations``,
            ``cue_tag_content_triples`` (rows sent), ``semantic_unit_rows``.
        Raises:
            EmptyTextError, InvalidInputError: bad turns (naming them); ControllerError: the LLM
            extractor's output was invalid twice.
        """
        began = time.monotonic()
        batches = [episodes_of(c) for c in conversations]
        for conv, episodes in zip(conversations, batches, strict=True):
            if not episodes:
                raise InvalidInputError(f"conversation {conv.id!r} has no turns")
        usage = LLMUsage()
        extractor = self.heuristic if self.llm is None else LLMCueExtractor(self.llm, usage)
        report = IngestReport(memory=self.name, namespace=self.namespace, extractor=extractor.name,
                              details={"conversations": 0, "cue_tag_content_triples": 0,
                                       "semantic_unit_rows": 0})
        for episodes in batches:
            conv_began = time.monotonic()
            report.inputs += len(episodes)
            ids = [node_id(self.namespace, "episode", e.conversation_id, e.source_id)
                   for e in episodes]
            stored = self.store.existing_episode_ids(ids)
            report.add_skipped("turn", len(stored))
            missing = [i for i, eid in enumerate(ids) if eid not in stored]
            if missing:
                created, rows = self._write_missing(episodes, missing, extractor)
                report.add_created(created)
                report.details["conversations"] += 1
                report.details["cue_tag_content_triples"] += (len(rows["episode_links"])
                                                              + len(rows["semantic_links"]))
                report.details["semantic_unit_rows"] += len(rows["semantic_units"])
                logger.info("associative ingest %s: %d turns (%d new), created %s, %.2f s",
                            episodes[0].conversation_id, len(episodes), len(missing), created,
                            time.monotonic() - conv_began)
            if progress is not None:
                for start in range(0, len(episodes), PROGRESS_CHUNK):
                    progress(min(PROGRESS_CHUNK, len(episodes) - start))
        self._totals = None
        report.seconds = round(time.monotonic() - began, 3)
        report.llm_usage = self._account(usage)
        return report

    def _write_missing(self, episodes: list[Any], missing: list[int],
                       extractor: Any) -> tuple[dict[str, int], dict[str, Any]]:
        """Build and write the episodes not stored yet (a resumed or incremental ingest processes
        only those) in one transaction. Each new turn is encoded once, as its retrieval window (a
        long turn also as its passages, in the same call), in a background thread while cues
        and tags are extracted and the vector-free rows written;
        the stored last episode of an extended session gets its window re-encoded. The timeline
        links each new episode to its predecessor in the input, and the first input episode, when
        new, to the conversation's latest stored episode before it (an incremental add). A batch
        that is not the whole conversation gets themes of its own (ids scoped by its first source
        id), and none under :data:`MIN_THEME_EPISODES`."""
        new = [episodes[i] for i in missing]
        first, last = new[0], new[-1]
        for attempt in range(1, PLAN_ATTEMPTS + 1):
            context = self.store.timeline_context(first.conversation_id, first.position,
                                                  last.position, first.session, last.session)
            context.update(timeline_id=node_id(self.namespace, "timeline", first.conversation_id),
                           conversation_id=first.conversation_id, first=first.position,
                           last=last.position, first_session=first.session,
                           last_session=last.session)
            try:
                return self._write_planned(new, extractor, context)
            except StaleTimeline as exc:
                logger.info("associative ingest: %s (attempt %d of %d), planning again", exc,
                            attempt, PLAN_ATTEMPTS)
        raise DatabaseError(
            f"conversation {first.conversation_id!r}: {PLAN_ATTEMPTS} batches of other writers "
            "changed its timeline while this one was prepared; retry the ingest (what is stored "
            "is skipped)")

    def _write_planned(self, new: list[Any], extractor: Any,
                       context: dict[str, Any]) -> tuple[dict[str, int], dict[str, Any]]:
        """One attempt of :meth:`_write_missing` on the stored neighbours of ``context`` (see
        ``associative/timeline_context``): the batch is linked after the timeline's episode before
        it and before the one after it, on NEXT_EPISODE and, within the sessions, NEXT_TURN (the
        direct edge between those two is dropped), and both neighbours' windows re-encoded."""
        plan = plan_units(new, self.namespace, before=context["session_before"],
                          after=context["session_after"])
        ids = plan["ids"]
        whole = not context["stored"]
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-encode") as pool:
            # one encode call: the windows, then the long turns' passages
            encoding = pool.submit(contextvars.copy_context().run,  # traced with the ingest
                                   self.embedder.embed_documents,
                                   plan["windows"] + plan["passage_texts"])
            try:
                rows = build_rows(new, extractor, self.namespace, plan)
            except BaseException:
                encoding.cancel()
                raise
            rows["relink"] = relink_rows(ids, context, plan)
            if context["timeline_before"] is not None:
                rows["timeline"].insert(0, {"previous": context["timeline_before"], "next": ids[0]})

            def finish() -> dict[str, Any]:
                return attach_vectors(rows, encoding.result(), new, self.namespace,
                                      theme_scope=None if whole else new[0].source_id,
                                      min_theme_episodes=1 if whole else MIN_THEME_EPISODES)

            created = self.store.write_graph(rows, finish, context)
        return created, rows

    def counts(self) -> dict[str, int]:
        """Node counts by label (``Cue``, ``Tag``, ``Episode``, ``SemanticUnit``, ``Theme``,
        ``Timeline``) of this namespace, zeros included; relationships (``HAS_TAG``,
        ``LEADS_TO``, ...) are in :meth:`relationship_counts`."""
        row = self.store.counts()
        return {label: int(row[key]) for label, key in LABEL_KEYS.items()}

    # ------------------------------------------------------------------ baseline
    def vector_search(self, question: str, k: int = 10) -> list[AssociativeItem]:
        """Plain vector RAG over the raw turns (the baseline): the ``k`` Episodes closest to the
        question by cosine (same embedder, same Episode embeddings, same namespace).

        Raises:
            EmptyTextError: empty question.
        """
        if not isinstance(question, str) or not question.strip():
            raise EmptyTextError(f"question is empty: {question!r}")
        check_count("k", k)
        rows = self.store.search_episodes(self.embedder.embed_query(question), k)
        seed = PathStep(action="vector_seed", node="question", id="question", text=question)
        return [AssociativeItem(id=r["id"], kind="episode", text=r["text"], score=r["score"],
                                source_ids=list(dict.fromkeys(r["source_ids"])), path=[seed],
                                conversation_id=r.get("conversation_id") or "",
                                occurred_at=r.get("occurred_at"), similarity=r["score"])
                for r in rows]

    # ------------------------------------------------------------------ reconstruction
    def recall(self, query: str, k: int = DEFAULT_K, *, max_rounds: int | None = None,
               structure: Structure | None = None,
               config: ReconstructionConfig | None = None, since: datetime | None = None,
               until: datetime | None = None,
               as_of: datetime | None = None,
               include_archived: bool = False) -> RecallResult[AssociativeItem]:
        """Active multi-step reconstruction (MRAgent section 4 / 6) on the retrieval engine.

        Round 1 (``seed``): :class:`graphmem.retrieval.HybridSearch` over the namespace's Episodes
        (per-namespace BM25 + window-vector cosine, session-neighbour and entity steps; one query).
        Rounds 2..``max_rounds`` (one query each): the question's cues matched to Cue nodes by
        normalised text (never encoded), then the cues of the best contents (backward), cue -> tag
        (the router picks), cue + tag -> content; a content of ``H`` reached this way gets the graph
        step ``γ·w(c)·x_source`` (:mod:`graphmem.associative.reconstruction`) and the engine re-ranks.
        Stops when a round lifts nothing into the top ``stop_top_k``, no cue is left, the LLM says
        the evidence suffices, or the budget is spent.

        Args:
            query: the question (non-empty).
            k: items returned (1..200).
            max_rounds: the round budget, the seed included (1..20; 1 = the engine round
                only), default ``config.steps + 1``.
            structure: ``ce`` (cue->episode), ``cte`` (cue-tag-episode), ``ctc`` (with semantic
                units, attached to their episode as ``facts``).
            config: overrides the memory's :class:`ReconstructionConfig`.
            since, until: the half-open window ``since <= t < until`` on the episode's time
                (``occurred_at``; time-zone-aware datetimes, either may be None: open): the
                seed round's candidates, and so every content reconstruction can lift, are
                the window's episodes (filtered in the query, before its top-k cuts).
            as_of: answer as at this instant (aware; :mod:`graphmem.time_travel`): only
                episodes that occurred by then (narrows ``until``).
            include_archived: also episodes archived by retention (:mod:`graphmem.agent.retention`;
                default: archived episodes are no seed candidates, so no round reaches them).
        Returns:
            :class:`~graphmem.memory.RecallResult` of :class:`AssociativeItem` (score = engine
            final score), ``rounds`` from 1 (seed) with ``details`` active_cues / candidates /
            selected_tags / stop / stop_reason; ``timings`` in ms (embed, search, total).
        Raises:
            EmptyTextError: empty question. InvalidInputError: k or max_rounds out of range; a
                naive ``since`` / ``until`` / ``as_of``, ``since >= until`` or ``since`` after
                ``as_of`` (naming the value).
            ControllerError: invalid LLM routing output twice.
        """
        began = time.perf_counter()
        if not isinstance(query, str) or not query.strip():
            raise EmptyTextError(f"question is empty: {query!r}")
        check_count("k", k)
        since, until, _ = check_as_of(since, until, as_of)
        cfg = (config or self.config).model_copy()
        if max_rounds is not None:
            cfg.steps = check_count("max_rounds", max_rounds, high=20) - 1
        if structure is not None:
            cfg.structure = structure
        cfg.pool = max(cfg.pool, k)
        usage = LLMUsage()
        router = (HeuristicAssociativeRouter(cfg.tag_beam) if self.llm is None
                  else LLMAssociativeRouter(self.llm, usage))
        cue_texts = question_cue_texts([c.cue for c in self.heuristic.question_cues(query)])
        q_vec = self.embedder.embed_query(query)  # the one model call of a recall
        embedded = time.perf_counter()
        search = HybridSearch(self.runner, "Episode", self.fusion)
        row = search.fetch(self.namespace, query, q_vec, since=since, until=until,
                           include_archived=include_archived)
        terms = index_terms(query)
        ranked = search.rank(row, terms, cfg.pool)
        trace: list[RoundTrace] = [RoundTrace(
            round=1, active_cues=[], new_evidence=[c.id for c in ranked[:cfg.stop_top_k]],
            candidates={"units": int(search.last_details.get("candidates", 0))})]
        state = None
        rounds_of: dict[str, int] = {}
        if cfg.steps and ranked:
            ranked, state, _ = Reconstructor(self.runner, self.namespace, search).run(
                query, cue_texts, row, terms, cfg, router, trace, ranked)
            for t in trace[1:]:
                for item_id in t.new_evidence:
                    rounds_of.setdefault(item_id, t.round)
        units = {u["id"]: u for u in row.get("units") or []}
        q_step = PathStep(action="ask", node="question", id="question", text=query[:200])
        items = to_items(ranked[:k], units, state, q_step, rounds_of)
        done = time.perf_counter()
        return AssociativeRecallResult(
            memory=self.name, namespace=self.namespace, query=query,
            items=items, rounds=to_rounds(trace), controller=self.controller,
            llm_usage=self._account(usage),
            timings={"embed": round((embedded - began) * 1000, 3),
                     "search": round((done - embedded) * 1000, 3),
                     "total": round((done - began) * 1000, 3)})

    def documents(self, result: RecallResult[AssociativeItem]) -> list[Document]:
        """One Document per item: provenance ``dia_ids``, conversation, time, round,
        similarity, ``found_by`` and the path; an item resting on one turn (an episode, a semantic
        unit of one turn) fuses on that turn
        (:func:`graphmem.documents.conversation_fusion_key`)."""
        docs = []
        for rank, item in enumerate(result.items, start=1):
            path = [step.model_dump() for step in item.path]
            docs.append(item_document(
                item, result.namespace, rank,
                [step["id"] for step in path if step["node"] not in ("question", "speaker")],
                {"dia_ids": list(item.source_ids), "conversation_id": item.conversation_id,
                 "occurred_at": item.occurred_at, "round": item.round,
                 "similarity": item.similarity, "found_by": list(item.found_by), "path": path},
                conversation_fusion_key(item.source_ids, item.conversation_id)))
        return docs

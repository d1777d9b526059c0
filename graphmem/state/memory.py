"""``StateMemory``: the EMIR² State-Evolving Memory Graph (seed 002) on Neo4j.

Ingest (section 3.2, SEMG construction; :mod:`graphmem.state.ingest`): every turn becomes an
Event on a topic chain (Topic head, FIRST_TIMELINE_NODE, TEMPORAL_NEXT in event-time order, late
events inserted in place) and a retrieval unit of :mod:`graphmem.retrieval` (window-text vector,
lexical terms, NEXT_TURN to the next turn of its session); assertions update the topic's
semantic States by evidence (initial / confirm / change / history / conflict; exactly one
CURRENT_STATE per topic); events of different topics that are similar get RELATED_EVENT edges.

Recall (section 3.3, intent-guided multi-round retrieval): a controller picks one retrieval
action per round from the question's intent and the evidence so far, until it stops or the
round budget is spent. The result lists every round's action and the evidence it added.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.conversations import (
    Conversation,
    Format,
    Turn,
    read_conversations,
    validate_conversation,
)
from graphmem.embeddings import Embedder, validate_texts
from graphmem.errors import InvalidInputError
from graphmem.documents import conversation_fusion_key, item_document, iso
from graphmem.graph.runner import QueryRunner
from graphmem.llm import LLMUsage
from graphmem.memory import (DEFAULT_K, IngestReport, Memory, PathStep, Progress, RecallResult,
                             Round, check_count, check_number)
from graphmem.state.options import StateRecallOptions
from graphmem.names import node_id
from graphmem.retrieval import HybridSearch
from graphmem.retrieval.text import index_terms
from graphmem.state.extraction import HeuristicStateExtractor, LLMStateExtractor
from graphmem.state.models import StateItem, TimeRange
from graphmem.state.planner import HeuristicStatePlanner, LLMStatePlanner, detect_intent
from graphmem.retrieval.fusion import FusionParams
from graphmem.state.ingest import ingest_conversation
from graphmem.state.people_store import people_due, write_people
from graphmem.state.recall import GRAPH_WEIGHT, StateRecall
from graphmem.state.store import StateStore
from graphmem.time_travel import check_as_of, judge_state_at
from graphmem.timeparse import month_range, year_range

if TYPE_CHECKING:
    from langchain_core.documents import Document

logger = logging.getLogger(__name__)

#: The parametrized result model, built once: pydantic holds parametrized generics weakly, so
#: one built inside a call is collected and built again (~4 ms) by a later call.
StateRecallResult = RecallResult[StateItem]

#: Turns per progress report when a conversation is one transaction.
PROGRESS_CHUNK = 25

_MONTHS = ("january february march april may june july august september october november "
           "december").split()


def time_range_of(question: str) -> TimeRange | None:
    """The month or year a question names ("in May 2023", "in 2022") as a half-open UTC range
    ``[start, end)`` (:func:`graphmem.timeparse.month_range` / ``year_range``: "in January 2023"
    is ``[2023-01-01T00:00Z, 2023-02-01T00:00Z)``, so 23:59:59.5 on 31 January is inside), else
    None."""
    low = question.lower()
    year = re.search(r"\b(19|20)\d{2}\b", low)
    month = next((m for m in _MONTHS if re.search(rf"\b{m}\b", low)), None)
    if not year:
        return None
    y = int(year.group(0))
    start, end = month_range(y, _MONTHS.index(month) + 1) if month else year_range(y)
    return TimeRange(start=start, end=end)


class StateMemory(Memory[StateItem]):
    """State memory (EMIR² SEMG) of one namespace.

    Args:
        runner: the query runner (migrated database).
        embedder: text embedder, ``(n, d)`` float32 unit rows.
        namespace: tenant scope.
        llm: optional langchain-core ``BaseChatModel``; None => heuristic extractor/planner.
        topic_threshold: cosine in [-1, 1] to join an existing topic (heuristic assignment).
        confirm_threshold: cosine at or above which a new assertion confirms the current state.
        related_threshold: cosine for cross-topic RELATED_EVENT edges; ``related_per_event`` max.
        fusion: the retrieval engine's fusion parameters (α, β, δ; default
            :class:`graphmem.retrieval.fusion.FusionParams`), also settable as ``self.fusion``.
        graph_weight: γ of the graph step of the ``timeline`` / ``cross_topic`` / ``time_range``
            rounds (default :data:`graphmem.state.recall.GRAPH_WEIGHT`).
    Raises:
        InvalidInputError: bad namespace.
    """

    name = "state"
    options_model = StateRecallOptions
    message_queries = "state"

    def __init__(self, runner: QueryRunner, embedder: Embedder, namespace: str = "default",
                 llm: Any | None = None, *, topic_threshold: float = 0.5,
                 confirm_threshold: float = 0.95, related_threshold: float = 0.6,
                 related_per_event: int = 3, fusion: FusionParams | None = None,
                 graph_weight: float = GRAPH_WEIGHT):
        super().__init__(runner, embedder, namespace, llm)
        self.fusion = fusion or FusionParams()
        self.graph_weight = check_number("graph_weight", graph_weight, low=0.0)
        self.store = StateStore(runner, self.namespace)
        self.topic_threshold = topic_threshold
        self.confirm_threshold = confirm_threshold
        self.related_threshold = related_threshold
        self.related_per_event = related_per_event

    # ================================================================== ingest
    def last_message_time(self, conversation_id: str) -> datetime | None:
        """The time of the conversation's latest stored event (one read), or None."""
        rows = self.runner.read("state/last_event", namespace=self.namespace,
                                conversation=conversation_id)
        return _native(rows[0]["occurred_at"]) if rows else None

    def ingest_file(self, path: str | Path, fmt: Format = "auto", *,
                    progress: Progress | None = None) -> IngestReport:
        """Read ``path`` (LoCoMo, generic JSON/JSONL or MemConflict) and ingest every conversation.

        Raises:
            InputFormatError: malformed file (nothing written).
        """
        conversations = read_conversations(path, fmt)
        return self.ingest(conversations, progress=progress)

    def ingest(self, conversations: Sequence[Conversation], *,
               progress: Progress | None = None) -> IngestReport:
        """Ingest conversations (EMIR² §3.2, SEMG construction); the new turns of each
        conversation are one batch written in one transaction with a constant number of
        statements (:mod:`graphmem.state.ingest`), each turn encoded once (its window text);
        then, in a second transaction, when the conversation has grown by a tenth since they
        were last resolved, the conversation's people are resolved again from all its events
        and its Person nodes replaced (:mod:`graphmem.state.people_store`).
        Turns whose event already exists are skipped, so re-ingesting creates nothing new.

        Args:
            conversations: the conversations (:mod:`graphmem.conversations`).
            progress: called with the number of turns done, in chunks of at most
                :data:`PROGRESS_CHUNK` after each conversation commits.
        Returns:
            :class:`~graphmem.memory.IngestReport`: ``inputs`` turns read; ``created`` nodes by
            label (``Topic``, ``Event``, ``State``, ``ConversationLock``, ``Person``: the people a
            conversation gained, :mod:`graphmem.state.people`) from the write queries' answers;
            ``skipped["turn"]`` turns already stored; ``details``: ``conversations``,
            ``state_relations`` (initial / confirm / change / history / conflict counts),
            ``related_edges``.
        Raises:
            EmptyTextError / InvalidInputError: bad turns (every conversation checked before
                anything is written).
            ControllerError: the LLM extractor failed twice (nothing of that conversation written).
            DatabaseError: concurrent writers kept changing a batch's surroundings (nothing of
                that conversation written).
        """
        began = time.monotonic()
        extractor = LLMStateExtractor(self.llm) if self.llm is not None else HeuristicStateExtractor()
        report = IngestReport(memory=self.name, namespace=self.namespace, extractor=extractor.name,
                              details={"conversations": 0, "state_relations": {}, "related_edges": 0})
        for conv in conversations:
            validate_conversation(conv)  # the limits every memory applies (ids, speakers, texts)
        for conv in conversations:
            conv_began = time.monotonic()
            before = dict(report.created)
            self._ingest_one(conv, extractor, report)
            report.inputs += len(conv.turns)
            report.details["conversations"] += 1
            logger.info("state ingest %s: %d turns, created %s, %.2f s", conv.id, len(conv.turns),
                        {k: v - before.get(k, 0) for k, v in report.created.items()},
                        time.monotonic() - conv_began)
            if progress:
                for start in range(0, len(conv.turns), PROGRESS_CHUNK):
                    progress(min(PROGRESS_CHUNK, len(conv.turns) - start))
        report.llm_usage = self._account(extractor.usage)
        report.seconds = round(time.monotonic() - began, 3)
        return report

    def _event_id(self, conv: Conversation, turn: Turn) -> str:
        return node_id(self.namespace, "event", conv.id, turn.source_id)

    def _ingest_one(self, conv: Conversation, extractor: Any, report: IngestReport) -> None:
        """One conversation's new turns, then (when it stored any and has grown enough since,
        :func:`graphmem.state.people_store.people_due`) its people resolved again from all its
        events (:func:`graphmem.state.people_store.write_people`; ``created`` counts the Person
        nodes the conversation gained)."""
        events = report.created.get("Event", 0)
        ingest_conversation(self, conv, extractor, report)
        lock = self.store.lock_id(conv.id)
        if report.created.get("Event", 0) > events and people_due(self.runner, self.namespace,
                                                                  conv.id, lock):
            people = write_people(self.runner, self.namespace, conv.id, lock)
            report.add_created({"Person": max(0, people["people"] - people["deleted"])})

    def resolve_people(self, conversation_id: str) -> dict[str, int]:
        """Resolve the people of one stored conversation again from all its events now, whether
        or not they are due (ingest resolves them once the conversation has grown by a tenth:
        :func:`graphmem.state.people_store.people_due`), and replace its ``Person`` nodes and
        ``MENTIONS`` edges in one transaction.

        Args:
            conversation_id: the conversation's id.
        Returns:
            ``{"people": n, "mentions": m, "deleted": d}``; all 0 when the namespace holds no
            event of that conversation.
        Raises:
            InvalidInputError: an empty ``conversation_id``. DatabaseError subclasses (nothing
            written).
        """
        if not isinstance(conversation_id, str) or not conversation_id.strip():
            raise InvalidInputError(f"conversation_id must be a non-empty string, got "
                                    f"{conversation_id!r}")
        return write_people(self.runner, self.namespace, conversation_id,
                            self.store.lock_id(conversation_id))

    # ================================================================== recall
    def recall(self, query: str, k: int = DEFAULT_K, *, max_rounds: int = 2,
               planner: Any | None = None, since: datetime | None = None,
               until: datetime | None = None,
               as_of: datetime | None = None,
               include_archived: bool = False) -> RecallResult[StateItem]:
        """Intent-guided multi-round retrieval (EMIR² §3.3) on the retrieval engine.

        Round 1 (``search_events``): :class:`graphmem.retrieval.HybridSearch` over the namespace's
        Events (per-namespace BM25 + window-vector cosine, session-neighbour and entity steps; one
        query). Each later round runs the action the planner picks for the question's intent, one
        query each (:mod:`graphmem.state.recall`): the state layer (``search_states``,
        ``current_state``, ``state_history``), the topic chain (``timeline``), related events of
        other topics (``cross_topic``) or a date range the question names (``time_range``); the
        engine re-ranks the same candidates. Stops at ``stop`` or when the budget is spent.

        Args:
            query: the question (non-empty).
            k: items to return (1..200).
            max_rounds: round budget including the first (1..8).
            planner: override (an object with ``name``, ``usage`` and ``choose(...)``); default
                :class:`LLMStatePlanner` when ``llm`` is set, else :class:`HeuristicStatePlanner`.
            since, until: the half-open window ``since <= t < until`` (time-zone-aware
                datetimes; either may be None: open on that side): only events that occurred in
                it (``occurred_at``) and states that became valid in it (``valid_from``, the
                time of the event that established them) are items; the window is applied in
                the queries, before each top-k cut.
            as_of: answer as at this instant (aware; :mod:`graphmem.time_travel`): events
                that occurred and states that became valid by then, each state judged then
                (one replaced later was current then). Narrows ``until``.
            include_archived: also events archived by retention (:mod:`graphmem.agent.retention`;
                default: archived events are no candidates, nor evidence an item is anchored on).
        Returns:
            :class:`~graphmem.memory.RecallResult` of :class:`StateItem` (events and states) best
            first, one item per evidence (a state takes its evidence event's place; the event's id
            is in ``also``); ``rounds`` lists each round's action, reason and the ids it added
            (``details["intent"]`` on the first); ``timings`` in ms (embed, search, total).
        Raises:
            EmptyTextError: empty question. InvalidInputError: k or max_rounds out of range; a
                naive ``since`` / ``until`` / ``as_of``, ``since >= until`` or ``since`` after
                ``as_of`` (naming the value).
            ControllerError: the LLM planner failed twice.
        """
        began = time.perf_counter()
        validate_texts([query], what="question")
        check_count("k", k)
        check_count("max_rounds", max_rounds, high=8)
        since, until, as_of = check_as_of(since, until, as_of)
        ctrl = planner or (LLMStatePlanner(self.llm) if self.llm is not None else HeuristicStatePlanner())
        intent = detect_intent(query)
        q = self.embedder.embed_query(query)
        embedded = time.perf_counter()
        span = time_range_of(query)
        search = HybridSearch(self.runner, "Event", self.fusion)
        row = search.fetch(self.namespace, query, q, since=since, until=until,
                           include_archived=include_archived)
        terms = index_terms(query)
        pool = max(3 * k, 30)
        ranked = search.rank(row, terms, pool)
        units = {u["id"]: u for u in row.get("units") or []}
        question = PathStep(action="ask", node="question", id="question", text=query[:200])
        rounds = [Round(number=1, action="search_events", reason="hybrid search over events",
                        added=[c.id for c in ranked[:k]],
                        details={"intent": intent, **{key: search.last_details.get(key) for key in
                                                      ("units", "candidates", "dense_mode")}})]
        state = StateRecall(self.runner, self.namespace, search, self.graph_weight,
                            since=since, until=until, as_of=as_of)
        while len(rounds) < max_rounds:
            so_far = (state.items(ranked, units, k, question, terms)
                      if getattr(ctrl, "reads_hits", True) else [])
            choice = ctrl.choose(query, intent, rounds, so_far, span is not None)
            if choice.action == "stop":
                rounds.append(Round(number=len(rounds) + 1, action="stop", reason=choice.reason))
                break
            if choice.action == "search_events":
                added, details = [], {"note": "events already searched"}
            else:
                ranked, added, details = state.act(choice.action, row, terms, ranked, pool, span)
            rounds.append(Round(number=len(rounds) + 1, action=choice.action, reason=choice.reason,
                                added=added, details=details))
            logger.debug("state recall round %d: %s added %d", len(rounds), choice.action, len(added))
        items = state.items(ranked, units, k, question, terms)
        self._event_validity(items, as_of)
        usage = LLMUsage()
        usage.merge(ctrl.usage)
        done = time.perf_counter()
        return StateRecallResult(
            memory=self.name, namespace=self.namespace, query=query, items=items, rounds=rounds,
            controller=ctrl.name, llm_usage=self._account(usage),
            timings={"embed": round((embedded - began) * 1000, 3),
                     "search": round((done - embedded) * 1000, 3),
                     "total": round((done - began) * 1000, 3)})

    # ================================================================== inspection
    def topic_chain(self, topic_id: str, limit: int = 10_000) -> list[dict[str, Any]]:
        """Events of a topic in TEMPORAL_NEXT order (at most ``limit``; see
        :meth:`StateStore.topic_chain`)."""
        return self.store.topic_chain(topic_id, limit)

    def counts(self) -> dict[str, int]:
        """Node counts of the namespace by label: ``Topic``, ``Event``, ``State``,
        ``ConversationLock`` (one per conversation written), ``Person`` (the people of its
        conversations, :mod:`graphmem.state.people`)."""
        row = self.store.structure()
        return {"Topic": row["topics"], "Event": row["events"], "State": row["states"],
                "ConversationLock": row["locks"], "Person": row["persons"]}

    def check(self) -> dict[str, int]:
        """Invariant violations of the SEMG, all 0 when sound: ``bad_current`` (topics with
        states whose CURRENT_STATE count is not 1), ``unchained`` (events off their topic
        chain)."""
        row = self.store.structure()
        return {"bad_current": row["bad_current"], "unchained": row["unchained"]}

    def _event_validity(self, items: list[StateItem], as_of: datetime | None = None) -> None:
        """Give each event item the validity of the state it is evidence of (one read,
        ``state/evidenced_states``; none without event items): ``state_id``, ``current``,
        ``valid_from``, ``valid_to``, ``conflict`` (an event evidencing no state keeps None),
        judged at ``as_of`` when given (:func:`graphmem.time_travel.judge_state_at`)."""
        events = [h.id for h in items if h.kind == "event"]
        if not events:
            return
        rows = {r["event_id"]: r for r in self.runner.read(
            "state/evidenced_states", namespace=self.namespace, event_ids=events)}
        for h in items:
            row = rows.get(h.id) if h.kind == "event" else None
            if row is not None:
                h.state_id, h.current, h.conflict = row["state_id"], bool(row["current"]), bool(row["conflict"])
                h.valid_from, h.valid_to = _native(row["valid_from"]), _native(row["valid_to"])
                h.current, h.valid_to = judge_state_at(h.current, h.valid_to, as_of)

    def documents(self, result: RecallResult[StateItem]) -> list[Document]:
        """One Document per item: provenance ``dia_ids`` (source turn ids), topic, validity
        interval, current / conflict flags (an event's: those of the state it is evidence of,
        ``state_id``), ``found_by`` and ``also`` (items folded into it); metadata ``validity``
        for an item with a state judgement. Fusion key
        (:func:`graphmem.documents.conversation_fusion_key`): the one turn the item rests on, or
        for a state resting on several the evidence turn it stands in for (``StateItem.anchor``),
        so an Event, a State of that turn and an associative Episode of it fuse into one
        document."""
        docs = []
        for rank, h in enumerate(result.items, start=1):
            state_id = h.id if h.kind == "state" else h.state_id
            doc = item_document(
                h, result.namespace, rank, [h.topic_id, *h.also],
                {"also": list(h.also), "dia_ids": list(h.source_ids), "topic": h.topic, "topic_id": h.topic_id,
                 "occurred_at": iso(h.occurred_at), "valid_from": iso(h.valid_from),
                 "valid_to": iso(h.valid_to), "current": h.current, "conflict": h.conflict,
                 "state_id": state_id, "found_by": list(h.found_by)},
                conversation_fusion_key(h.source_ids, h.conversation,
                                        h.anchor[0] if h.anchor else None))
            if state_id and h.current is not None:
                doc.metadata["validity"] = {
                    "topic_id": h.topic_id, "state_id": state_id, "current": h.current,
                    "valid_from": iso(h.valid_from), "valid_to": iso(h.valid_to),
                    "conflict": bool(h.conflict)}
            docs.append(doc)
        return docs


def _native(value: Any) -> Any:
    return value.to_native() if hasattr(value, "to_native") else value

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
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dateutil import parser as date_parser
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from graphmem.conversations import Conversation, Format, Turn, read_conversations
from graphmem.embeddings import Embedder, validate_texts
from graphmem.documents import item_document, iso, turn_key
from graphmem.graph.runner import QueryRunner
from graphmem.llm import LLMUsage
from graphmem.memory import (IngestReport, Memory, PathStep, Progress, RecallResult, Round,
                             check_count)
from graphmem.names import node_id
from graphmem.state.dedupe import dedupe_items
from graphmem.state.extraction import HeuristicStateExtractor, LLMStateExtractor
from graphmem.state.models import StateItem, TimeRange
from graphmem.state.planner import HeuristicStatePlanner, LLMStatePlanner, detect_intent
from graphmem.state.ranking import fuse_keyword, merge_hit, rank
from graphmem.state.ingest import ingest_conversation
from graphmem.state.store import StateStore
from graphmem.text import matching_tokens

if TYPE_CHECKING:
    from langchain_core.documents import Document

logger = logging.getLogger(__name__)

#: Turns per progress report when a conversation is one transaction.
PROGRESS_CHUNK = 25

_MONTHS = ("january february march april may june july august september october november "
           "december").split()


def keyword_query(question: str) -> str:
    """A Lucene OR-query of the question's content words: :func:`graphmem.text.matching_tokens`
    (word characters of any script, NFC and case-folded, so ``naïve`` and ``東京`` stay whole and
    need no escaping; ``_`` is not a Lucene operator)."""
    words = [w for w in matching_tokens(question) if w not in ENGLISH_STOP_WORDS and len(w) > 1]
    return " OR ".join(dict.fromkeys(words))


def time_range_of(question: str) -> TimeRange | None:
    """The month or year a question names ("in May 2023", "in 2022"), as a UTC range, else None."""
    low = question.lower()
    year = re.search(r"\b(19|20)\d{2}\b", low)
    month = next((m for m in _MONTHS if re.search(rf"\b{m}\b", low)), None)
    if not year:
        return None
    y = int(year.group(0))
    if month:
        start = date_parser.parse(f"1 {month} {y}").replace(tzinfo=timezone.utc)
        end = (start + timedelta(days=32)).replace(day=1) - timedelta(seconds=1)
    else:
        start = datetime(y, 1, 1, tzinfo=timezone.utc)
        end = datetime(y, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
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
    Raises:
        InvalidInputError: bad namespace.
    """

    name = "state"

    def __init__(self, runner: QueryRunner, embedder: Embedder, namespace: str = "default",
                 llm: Any | None = None, *, topic_threshold: float = 0.5,
                 confirm_threshold: float = 0.95, related_threshold: float = 0.6,
                 related_per_event: int = 3):
        super().__init__(runner, embedder, namespace, llm)
        self.store = StateStore(runner, self.namespace)
        self.topic_threshold = topic_threshold
        self.confirm_threshold = confirm_threshold
        self.related_threshold = related_threshold
        self.related_per_event = related_per_event
        # retrieval weights (tuned on locomo-dev; see docs/state.md)
        self.keyword_weight = 0.15
        self.timeline_decay = 0.9
        self.related_decay = 0.9
        self.current_bonus = 0.2

    # ================================================================== ingest
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
        statements (:mod:`graphmem.state.ingest`), each turn encoded once (its window text).
        Turns whose event already exists are skipped, so re-ingesting creates nothing new.

        Args:
            conversations: the conversations (:mod:`graphmem.conversations`).
            progress: called with the number of turns done, in chunks of at most
                :data:`PROGRESS_CHUNK` after each conversation commits.
        Returns:
            :class:`~graphmem.memory.IngestReport`: ``inputs`` turns read; ``created`` nodes by
            label (``Topic``, ``Event``, ``State``) from the write queries' answers;
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
            validate_texts([t.text for t in conv.turns], what=f"conversation {conv.id} turn")
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
        ingest_conversation(self, conv, extractor, report)

    # ================================================================== recall
    def recall(self, query: str, k: int = 10, *, max_rounds: int = 4,
               planner: Any | None = None) -> RecallResult[StateItem]:
        """Intent-guided multi-round retrieval (EMIR² §3.3).

        Args:
            query: the question (non-empty).
            k: items to return (1..200).
            max_rounds: round budget (1..8).
            planner: override (an object with ``name``, ``usage`` and ``choose(...)``); default
                :class:`LLMStatePlanner` when ``llm`` is set, else :class:`HeuristicStatePlanner`.
        Returns:
            :class:`~graphmem.memory.RecallResult` of :class:`StateItem` (events and states)
            ranked by fused score, one item per evidence (an Event and a State with the same
            text and source ids give one item, the other's id in ``also``); ``rounds`` lists each round's action, reason and the ids it
            added (``details["intent"]`` on the first); ``timings`` in ms (embed, search, total).
        Raises:
            EmptyTextError: empty question. InvalidInputError: k or max_rounds out of range.
            ControllerError: the LLM planner failed twice.
        """
        run = self._run(query, k, max_rounds, planner)
        items = dedupe_items(run["ranked"])[:k]
        return RecallResult[StateItem](
            memory=self.name, namespace=self.namespace, query=query, items=items,
            rounds=run["rounds"], controller=run["planner"].name, llm_usage=run["usage"],
            timings=run["timings"])

    def _run(self, question: str, k: int, max_rounds: int, planner: Any | None) -> dict[str, Any]:
        """The rounds of :meth:`recall`, returning the whole ranked pool (evaluation reads it)."""
        began = time.perf_counter()
        validate_texts([question], what="question")
        check_count("k", k)
        check_count("max_rounds", max_rounds, high=8)
        ctrl = planner or (LLMStatePlanner(self.llm) if self.llm is not None else HeuristicStatePlanner())
        intent = detect_intent(question)
        q = self.embedder.embed_query(question)
        embedded = time.perf_counter()
        span = time_range_of(question)
        pool: dict[str, StateItem] = {}
        rounds: list[Round] = []
        breadth = max(3 * k, 30)
        while len(rounds) < max_rounds:
            hits_now = rank(pool.values())
            choice = ctrl.choose(question, intent, rounds, hits_now, span is not None)
            details = {"intent": intent} if not rounds else {}
            if choice.action == "stop":
                rounds.append(Round(number=len(rounds) + 1, action="stop", reason=choice.reason,
                                    details=details))
                break
            added = self._act(choice.action, question, q, span, pool, hits_now, breadth)
            rounds.append(Round(number=len(rounds) + 1, action=choice.action, reason=choice.reason,
                                added=added, details=details))
            logger.debug("state recall round %d: %s added %d", len(rounds), choice.action, len(added))
        ranked = rank(pool.values())
        question_step = PathStep(action="ask", node="question", id="question", text=question[:200])
        for hit in ranked:
            hit.path = [question_step, *hit.path]
        usage = LLMUsage()
        usage.merge(ctrl.usage)
        done = time.perf_counter()
        timings = {"embed": round((embedded - began) * 1000, 3),
                   "search": round((done - embedded) * 1000, 3),
                   "total": round((done - began) * 1000, 3)}
        return {"ranked": ranked, "rounds": rounds, "planner": ctrl, "intent": intent,
                "usage": self._account(usage), "timings": timings}

    def _act(self, action: str, question: str, q: Any, span: TimeRange | None,
             pool: dict[str, StateItem], hits_now: list[StateItem], breadth: int) -> list[str]:
        added: list[str] = []

        def put(hit: StateItem, *via: PathStep) -> None:
            hit.path = [*via, PathStep(action=action, node=hit.kind, id=hit.id, text=hit.text[:120])]
            if merge_hit(pool, hit, action):
                added.append(hit.id)

        top_events = [h for h in hits_now if h.kind == "event"][:5]
        if action == "search_events":
            dense = self.store.search_events(q, breadth)
            keyword = self.store.keyword_events(keyword_query(question), breadth)
            fused = fuse_keyword({h.id: h.score for h in dense}, {h.id: h.score for h in keyword},
                                 self.keyword_weight)
            by_id = {h.id: h for h in keyword} | {h.id: h for h in dense}
            for event_id, score in sorted(fused.items(), key=lambda kv: -kv[1])[:breadth]:
                if event_id in by_id:
                    hit = by_id[event_id].model_copy()
                    hit.score = score
                    put(hit)
        elif action == "search_states":
            for hit in self.store.search_states(q, breadth):
                if hit.current:
                    hit.score += self.current_bonus
                elif hit.conflict:
                    hit.score -= self.current_bonus / 2
                put(hit)
        elif action in ("current_state", "state_history"):
            found = self.store.search_topics(q, 3)
            topics = {r["id"]: float(r["score"]) for r in found}
            names = {r["id"]: str(r.get("name") or "") for r in found}
            states = self.store.topic_states(list(topics), only_current=action == "current_state")
            for hit in states:
                base = topics.get(hit.topic_id or "", 0.0)
                bonus = self.current_bonus if hit.current else (
                    self.current_bonus / 2 if action == "state_history" else 0.0)
                hit.score = base + bonus - (0.05 if hit.conflict and not hit.current else 0.0)
                put(hit, PathStep(action="search_topics", node="topic", id=hit.topic_id or "",
                                  text=names.get(hit.topic_id or "", "")))
        elif action == "timeline":
            parents = {h.id: h.score for h in top_events}
            trails = {h.id: h.path for h in top_events}
            for parent, distance, hit in self.store.timeline(list(parents), hops=1):
                hit.score = parents[parent] * self.timeline_decay ** distance
                put(hit, *trails[parent])
        elif action == "cross_topic":
            parents = {h.id: h.score for h in top_events}
            trails = {h.id: h.path for h in top_events}
            for parent, sim, hit in self.store.related(list(parents)):
                hit.score = parents[parent] * self.related_decay * max(sim, 0.0)
                put(hit, *trails[parent])
        elif action == "time_range" and span is not None:
            for hit in self.store.events_in_range(span.start, span.end, q, breadth):
                put(hit)
        return added

    # ================================================================== inspection
    def topic_chain(self, topic_id: str, limit: int = 10_000) -> list[dict[str, Any]]:
        """Events of a topic in TEMPORAL_NEXT order (at most ``limit``; see
        :meth:`StateStore.topic_chain`)."""
        return self.store.topic_chain(topic_id, limit)

    def counts(self) -> dict[str, int]:
        """Node counts of the namespace by label: ``Topic``, ``Event``, ``State``."""
        row = self.store.structure()
        return {"Topic": row["topics"], "Event": row["events"], "State": row["states"]}

    def check(self) -> dict[str, int]:
        """Invariant violations of the SEMG, all 0 when sound: ``bad_current`` (topics with
        states whose CURRENT_STATE count is not 1), ``unchained`` (events off their topic
        chain)."""
        row = self.store.structure()
        return {"bad_current": row["bad_current"], "unchained": row["unchained"]}

    def documents(self, result: RecallResult[StateItem]) -> list[Document]:
        """One Document per item: provenance ``dia_ids`` (source turn ids), topic, validity
        interval, current / conflict flags, ``found_by`` and ``also`` (items folded into it);
        the fusion key of an item with source turns is its turn key
        (:func:`graphmem.documents.turn_key`), so an Event, a State saying the same on the same
        turns and an associative Episode of that turn fuse into one document."""
        return [
            item_document(
                h, result.namespace, rank, [h.topic_id, *h.also],
                {"also": list(h.also), "dia_ids": list(h.source_ids), "topic": h.topic, "topic_id": h.topic_id,
                 "occurred_at": iso(h.occurred_at), "valid_from": iso(h.valid_from),
                 "valid_to": iso(h.valid_to), "current": h.current, "conflict": h.conflict,
                 "found_by": list(h.found_by)},
                turn_key(list(h.source_ids), h.text) if h.source_ids else None)
            for rank, h in enumerate(result.items, start=1)
        ]

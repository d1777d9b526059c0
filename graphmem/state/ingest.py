"""State-memory ingest of one conversation (EMIR² SEMG construction, seed 002 §3.2), at the speed
of encoding.

For the new turns of a conversation (:func:`ingest_conversation`):

1. extract (heuristic or LLM, :mod:`graphmem.state.extraction`), once;
2. read the stored session neighbours of the new turns (none for a conversation not stored yet);
3. encode, in ONE call (on the heuristic path in a worker thread while step 1 runs), each new
   turn's window text (:func:`graphmem.retrieval.window_texts`),
   the re-encoded window of each stored neighbour that gets a new session neighbour (one per
   session appended to) and the passages of each new long message
   (:mod:`graphmem.retrieval.passages`; a refreshed neighbour keeps its stored passages: they
   depend on its own text only); an LLM extractor's topic names and assertions are encoded in
   the same call, the heuristic path encodes nothing else: a new topic's vector is its founding event's
   vector and a state's vector its evidence event's vector;
4. assign topics in event-time order (:class:`graphmem.state.topics.TopicAssigner`) and find
   RELATED_EVENT pairs from the vectors in memory (:func:`graphmem.state.related.related_pairs`,
   plus stored partners from the vector index when the conversation already has events);
5. write everything in one transaction (:meth:`graphmem.state.store.StateStore.write_batch`).

If the transaction finds the stored graph changed around the batch (a concurrent writer), the
batch is prepared again (at most :data:`MAX_ATTEMPTS` times).
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timezone
from typing import TYPE_CHECKING, Any

import numpy as np

from graphmem.conversations import Conversation, Turn
from graphmem.errors import ConstraintViolationError, DatabaseError
from graphmem.memory import IngestReport
from graphmem.names import node_id
from graphmem.state.batch import Batch, StaleBatch, neighbour_signature, session_order
from graphmem.state.chain import NewEvent
from graphmem.state.evolution import Assertion
from graphmem.state.models import Extraction
from graphmem.state.related import StoredMatch, related_pairs
from graphmem.state.topics import TopicAssigner, TopicRef, key_phrase
from graphmem.timeparse import time_param

if TYPE_CHECKING:
    from graphmem.state.memory import StateMemory

logger = logging.getLogger(__name__)

#: Preparations of one batch before giving up when concurrent writers keep changing its
#: surroundings.
MAX_ATTEMPTS = 8


def sort_key(turn: Turn, event_id: str) -> str:
    """The chain key of an event: UTC time, turn position, id (lexicographic = event-time order)."""
    stamp = turn.timestamp.astimezone(timezone.utc)
    return f"{stamp.strftime('%Y-%m-%dT%H:%M:%S.%f')}|{turn.position:09d}|{event_id}"


def ingest_conversation(mem: StateMemory, conv: Conversation, extractor: Any,
                        report: IngestReport) -> None:
    """Ingest the turns of ``conv`` whose event is not stored yet; counts go into ``report``
    (``created``, ``skipped["turn"]``, ``details["state_relations"]``, ``related_edges``).

    Raises:
        ControllerError: the LLM extractor failed (nothing written).
        DatabaseError: the batch kept changing under concurrent writers (nothing written).
    """
    ids = {t.source_id: mem._event_id(conv, t) for t in conv.turns}
    existing = mem.store.existing_event_ids(list(dict.fromkeys(ids.values())))
    unique: dict[str, Turn] = {}
    for turn in conv.turns:
        unique.setdefault(ids[turn.source_id], turn)
    new_turns = sorted((t for i, t in unique.items() if i not in existing),
                       key=lambda t: (t.timestamp, t.position))
    if not new_turns:
        report.add_skipped("turn", len(conv.turns))
        return
    llm_vectors = extractor.name != "heuristic"
    layout, window_vectors = None, None
    if llm_vectors:
        extracted = extractor.extract(new_turns)
    else:  # encode the windows while the turns are extracted (torch releases the GIL)
        layout = read_layout(mem, conv, new_turns)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-encode") as pool:
            encoding = pool.submit(contextvars.copy_context().run,  # traced with the ingest
                                   mem.embedder.embed_documents, layout.texts)
            try:
                extracted = extractor.extract(new_turns)
            finally:
                window_vectors = encoding.result()
    extractions = dict(zip((ids[t.source_id] for t in new_turns), extracted, strict=True))
    for attempt in range(1, MAX_ATTEMPTS + 1):
        batch = prepare_batch(mem, conv, new_turns, [extractions[ids[t.source_id]] for t in new_turns],
                              llm_vectors=llm_vectors, layout=layout, window_vectors=window_vectors)
        layout, window_vectors = None, None  # a batch prepared again reads and encodes again
        try:
            result = mem.store.write_batch(batch, mem.confirm_threshold)
        except (StaleBatch, ConstraintViolationError) as exc:
            stored = mem.store.existing_event_ids([ids[t.source_id] for t in new_turns])
            if isinstance(exc, ConstraintViolationError) and not stored:
                raise  # not a concurrent writer storing one of these turns
            logger.info("state ingest %s: %s; preparing the batch again (attempt %d)", conv.id,
                        exc, attempt)
            new_turns = [t for t in new_turns if ids[t.source_id] not in stored]
            if not new_turns:
                report.add_skipped("turn", len(conv.turns))
                return
            continue
        report.add_skipped("turn", len(conv.turns) - len(new_turns))
        relations = report.details["state_relations"]
        for _, relation, _ in result.relations:
            relations[relation] = relations.get(relation, 0) + 1
        report.add_created({"Topic": result.topics, "Event": result.events, "State": result.states,
                            "ConversationLock": result.locks})
        report.details["related_edges"] += result.related_edges
        return
    raise DatabaseError(f"state ingest of conversation {conv.id!r}: its stored surroundings "
                        f"changed under concurrent writers {MAX_ATTEMPTS} times; nothing of it "
                        "was written")


@dataclass
class Layout:
    """What a batch's reads give before extraction: the event ids, the conversation's stored
    topics, the session rows and stored session neighbours, the session order
    (:func:`~graphmem.state.batch.session_order`), the texts to encode (the new turns' windows,
    then the refreshed stored neighbours' windows, then the new turns' passage texts, in turn
    order; ``passages``: how many passages each new turn has, aligned with ``ids``) and the
    conversation's batch count when read."""

    ids: list[str]
    known_rows: list[dict[str, Any]]
    session_rows: list[dict[str, Any]]
    neighbours: dict[str, dict[str, Any]]
    order: Any
    texts: list[str]
    batches: int | None = None
    passages: list[int] | None = None


def read_layout(mem: StateMemory, conv: Conversation, turns: Sequence[Turn]) -> Layout:
    """The reads of a batch of ``turns`` (new, event-time order): the conversation's topics and,
    when it has some, the new turns' stored session neighbours."""
    ids = [mem._event_id(conv, t) for t in turns]
    batches = mem.store.conversation_batches(conv.id)  # read first: a later batch changes it
    known_rows = mem.store.topics(conv.id)
    session_rows = [{"id": i, "session": t.session, "seq": t.position}
                    for t, i in zip(turns, ids, strict=True)]
    read = mem.store.session_neighbours(conv.id, session_rows) if known_rows else []
    neighbours = {r["id"]: r for r in read}
    order = session_order(turns, ids, neighbours, mem.namespace)
    texts = [order.units[i]["window_text"] for i in ids] + [r["window_text"] for r in order.refresh]
    passages = [len(order.units[i]["passage_texts"]) for i in ids]
    texts += [t for i in ids for t in order.units[i]["passage_texts"]]
    return Layout(ids, known_rows, session_rows, neighbours, order, texts, batches, passages)


def prepare_batch(mem: StateMemory, conv: Conversation, turns: Sequence[Turn],
                  extractions: Sequence[Extraction], *, llm_vectors: bool,
                  layout: Layout | None = None, window_vectors: np.ndarray | None = None) -> Batch:
    """The :class:`~graphmem.state.batch.Batch` of ``turns`` (new, event-time order) with their
    ``extractions``: reads (topics, session neighbours, stored related partners), one encode
    call, topic assignment; no write.

    Args:
        llm_vectors: encode the extractor's topic names and assertions (LLM path) as the topic
            and state vectors, instead of using the event vectors (heuristic path).
        layout, window_vectors: the batch's :func:`read_layout` and the ``(len(layout.texts),
            d) float32`` vectors of its texts, when they were read and encoded already (the
            heuristic path encodes while it extracts); None: read and encode here.
    """
    ns, store = mem.namespace, mem.store
    if layout is None:
        layout = read_layout(mem, conv, turns)
    ids, known_rows, session_rows = layout.ids, layout.known_rows, layout.session_rows
    neighbours, order, texts = layout.neighbours, layout.order, layout.texts
    extra: list[str] = []
    if llm_vectors:
        extra = sorted({x.assertion for x in extractions if x.assertion}
                       | {x.topic_name or x.topic_key for x in extractions if x.topic_key})
    if window_vectors is None or extra:
        vectors = np.asarray(mem.embedder.embed_documents(texts + extra), dtype=np.float32)
    else:
        vectors = np.asarray(window_vectors, dtype=np.float32)
    event_vecs = vectors[:len(ids)]
    refresh_vecs = vectors[len(ids):len(ids) + len(order.refresh)]
    counts = layout.passages or [0] * len(ids)
    ends = np.cumsum([len(ids) + len(order.refresh), *counts])
    passage_vecs = [vectors[a:b] for a, b in zip(ends[:-1], ends[1:], strict=True)]
    extra_vecs = dict(zip(extra, vectors[int(ends[-1]):], strict=True))

    batch = Batch(conversation=conv.id, event_ids=ids, session_rows=session_rows,
                  signature=neighbour_signature([{"id": i, **neighbours.get(i, {})} for i in ids]),
                  batches_seen=layout.batches,
                  turn_link=order.link, turn_unlink=order.unlink)
    for row, vec in zip(order.refresh, refresh_vecs, strict=True):
        state_id = node_id(ns, "state", row["conversation"], row["source_ids"][0]) \
            if row["conversation"] and row["source_ids"] else None
        batch.refresh.append({"id": row["id"], "prev_id": row["prev_id"], "next_id": row["next_id"],
                              "embedding": [float(x) for x in vec], "state_id": state_id})
        batch.refreshed_vectors[row["id"]] = (row["old_embedding"], vec)
        if state_id:
            batch.state_of[row["id"]] = state_id
    batch.lock_event_ids = sorted(r["id"] for r in order.refresh)

    known = [TopicRef(id=r["id"], key=r["key"], subject=r["subject"], name=r["name"],
                      embedding=np.asarray(_refreshed(r, order.refresh, refresh_vecs), dtype=np.float32))
             for r in known_rows]
    assigner = TopicAssigner(known, threshold=mem.topic_threshold)
    topic_rows: dict[str, dict[str, Any]] = {}
    topic_ids: list[str] = []
    founded = 0
    for turn, x, eid, vec, pvecs in zip(turns, extractions, ids, event_vecs, passage_vecs,
                                        strict=True):
        topic = assigner.by_key(x.topic_key) if x.topic_key else None
        if topic is None and not x.topic_key:
            best, sim = assigner.nearest(x.subject, vec)
            topic = best if best is not None and sim >= mem.topic_threshold else None
        if topic is None:
            key = x.topic_key or f"auto:{turn.source_id}"
            name = x.resolved_topic_name() or f"{x.subject}: {key_phrase(turn.text)}"
            emb = extra_vecs.get(x.topic_name or x.topic_key, vec) if llm_vectors and x.topic_key else vec
            topic = assigner.add(TopicRef(id=node_id(ns, "topic", conv.id, key), key=key,
                                          subject=x.subject, name=name, embedding=emb, new=True))
            founds = emb is vec  # the event's own vector: merge_events copies it on the server
            topic_rows[topic.id] = {"id": topic.id, "conversation": conv.id, "key": key,
                                    "name": name, "subject": x.subject,
                                    "embedding": None if founds else [float(v) for v in emb],
                                    "seq": len(known) + founded}
            founded += 1
        else:
            founds = False
            topic_rows.setdefault(topic.id, {"id": topic.id})
        topic_ids.append(topic.id)
        key = sort_key(turn, eid)
        unit = order.units[eid]
        batch.events.append({
            "id": eid, "conversation": conv.id, "text": turn.text, "speaker": turn.speaker,
            "subject": x.subject, "session": turn.session, "source_ids": [turn.source_id],
            "occurred_at": time_param(turn.timestamp), "seq": turn.position, "sort_key": key,
            "message_json": turn.message_json,
            "embedding": [float(v) for v in vec], "topic_id": topic.id, "founds_topic": founds,
            # a long message's passages: spans and vectors (flat), None for a short one
            "passage_spans": unit["passage_spans"] or None,
            "passage_embeddings": [float(v) for v in pvecs.ravel()] if len(pvecs) else None,
            **{k: unit[k] for k in ("lexical_text", "lexical_terms", "lexical_length", "ns_token",
                                    "is_cue", "is_smalltalk", "prev_id", "next_id")}})
        batch.chain.append(NewEvent(id=eid, topic_id=topic.id, sort_key=key))
        if x.assertion:
            claim = llm_vectors and x.assertion in extra_vecs
            state = {"id": node_id(ns, "state", conv.id, turn.source_id), "conversation": conv.id,
                     "content": x.assertion, "value": x.value or "", "condition": x.condition,
                     "subject": x.subject, "mutable": x.mutable, "valid_from": turn.timestamp,
                     "embedding": extra_vecs[x.assertion] if claim else vec}
            batch.assertions.append(Assertion(event_id=eid, topic_id=topic.id, session=turn.session,
                                              state=state, claim_vector=claim))
    batch.topics = [topic_rows[t] for t in sorted(topic_rows)]
    stored: list[StoredMatch] = []
    if known_rows and mem.related_per_event > 0:
        rows = [{"index": i, "topic_id": t, "embedding": [float(v) for v in vec]}
                for i, (t, vec) in enumerate(zip(topic_ids, event_vecs, strict=True))]
        stored = [StoredMatch(index=int(r["index"]), id=r["id"], topic_id=r["topic_id"],
                              similarity=float(r["similarity"]))
                  for r in store.related_candidates(conv.id, rows, mem.related_per_event)]
    batch.related = [{"source": a, "target": b, "similarity": s} for a, b, s in related_pairs(
        ids, topic_ids, event_vecs, mem.related_threshold, mem.related_per_event, stored)]
    return batch


def _refreshed(topic: dict[str, Any], refresh: Sequence[dict[str, Any]], vectors: np.ndarray) -> Any:
    """A stored topic's vector, or the refreshed window vector of the event it was taken from."""
    for row, vec in zip(refresh, vectors, strict=True):
        if row["topic_id"] == topic["id"] and row["old_embedding"] is not None \
                and topic["embedding"] is not None and list(topic["embedding"]) == list(row["old_embedding"]):
            return vec
    return topic["embedding"]

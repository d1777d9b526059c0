"""Evidence recall of the memories on any conversation corpus (LoCoMo, BEAM, ...) beside plain
baselines over the raw turns, per category, with session-level recall.

Every conversation is ingested into its own tenant ``<prefix>-<conversation>`` (state and
associative memory), and all of them stay in the database while any is questioned. Per question
with evidence (:func:`graphmem.evaluation.locomo.questions_of`), in one run:

- ``fused``: the public fused recall ``tenant.recall(question, k=depth)`` (reciprocal rank fusion
  of the memories holding data, each at its default round budget), its source ids in order;
- ``state`` / ``associative``: each memory's public ``recall(question, k=depth)``;
- ``bm25``, ``dense``, ``hybrid``: :class:`PlainBaselines` over the raw turns of the
  conversation (``"<speaker>: <text>"``, the text the memories store).

recall@k of a question = |gold ∩ first k distinct source ids| / |gold|; session recall@5 = 1 when
a gold turn's session is among the first 5 distinct sessions of the ranked turns
(:func:`session_recall`). With several retrieval settings and several conversations the memories'
figures are leave-one-conversation-out (:func:`graphmem.evaluation.protocol.leave_one_out`), as in
:func:`graphmem.evaluation.locomo.evaluate_locomo`.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from graphmem.conversations import Conversation
from graphmem.errors import InvalidInputError
from graphmem.evaluation.baselines import BM25Baseline
from graphmem.evaluation.caching import CachedReads
from graphmem.evaluation.locomo import ingest_tenant, questions_of, turn_text
from graphmem.evaluation.metrics import RecallTable, category_name, fuse_rankings, percentiles
from graphmem.evaluation.protocol import (SHIPPED, RetrievalSetting, apply_setting, drop_tenants,
                                          leave_one_out, rank_under_settings)
from graphmem.facade import GraphMemory
from graphmem.state.evaluation import recall_at

logger = logging.getLogger(__name__)

MEMORY_METHODS = ("fused", "state", "associative")
BASELINES = ("bm25", "dense", "hybrid")
METHODS = (*MEMORY_METHODS, *BASELINES)
#: The reciprocal-rank-fusion constant of ``hybrid`` (Cormack et al. 2009).
RRF_K = 60
#: The cut-off of ``per_conversation`` and of the report tables (must be one of ``ks``).
HEADLINE_K = 10
#: The cut-off of session recall.
SESSION_K = 5

Key = tuple[str, int]


class PlainBaselines:
    """Plain retrieval over one conversation's raw turns, in process.

    - ``bm25``: :class:`graphmem.evaluation.baselines.BM25Baseline` (bm25s, Lucene BM25);
    - ``dense``: exact cosine: ``embedder.embed_documents(texts)`` gives ``(n, d)`` float32 rows
      (normalised to unit length here), ranked by dot product with ``embedder.embed_query(q)``;
    - ``hybrid``: reciprocal rank fusion (k = 60) of the two lists
      (:func:`graphmem.evaluation.metrics.fuse_rankings`, Cormack et al. 2009).

    Args:
        turns: the conversation's turns (``source_id``, ``speaker``, ``text``); non-empty.
        embedder: an :class:`graphmem.embeddings.Embedder`.
    Raises:
        InvalidInputError: no turns, or embeddings that are not one ``(n, d)`` row per turn.
    """

    def __init__(self, turns: Sequence[Any], embedder: Any):
        if not turns:
            raise InvalidInputError("PlainBaselines needs at least one turn")
        self.ids = [t.source_id for t in turns]
        texts = [turn_text(t) for t in turns]
        self.bm25 = BM25Baseline(texts, self.ids)
        self.embedder = embedder
        vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise InvalidInputError(
                f"the embedder returned shape {vectors.shape} for {len(texts)} turns; expected "
                f"({len(texts)}, d)")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self.vectors = vectors / np.where(norms > 0, norms, 1.0)

    def dense(self, question: str, depth: int) -> list[str]:
        """The ``depth`` turns nearest ``question`` by cosine, best first (ties: earlier turn)."""
        query = np.asarray(self.embedder.embed_query(question), dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(query))
        scores = self.vectors @ (query / norm if norm > 0 else query)
        order = np.argsort(-scores, kind="stable")[:depth]
        return [self.ids[int(i)] for i in order]

    def rank_timed(self, question: str, depth: int) -> tuple[dict[str, list[str]],
                                                              dict[str, float]]:
        """:meth:`rank` and each method's milliseconds (``hybrid``: both lists plus the fusion)."""
        if depth < 1:
            raise InvalidInputError(f"depth must be a positive integer, got {depth!r}")
        ranked: dict[str, list[str]] = {}
        ms: dict[str, float] = {}
        began = time.perf_counter()
        ranked["bm25"] = self.bm25.search(question, depth)
        ms["bm25"] = (time.perf_counter() - began) * 1000
        began = time.perf_counter()
        ranked["dense"] = self.dense(question, depth)
        ms["dense"] = (time.perf_counter() - began) * 1000
        began = time.perf_counter()
        ranked["hybrid"] = fuse_rankings([ranked["bm25"], ranked["dense"]], k=RRF_K)[:depth]
        ms["hybrid"] = (time.perf_counter() - began) * 1000 + ms["bm25"] + ms["dense"]
        return ranked, ms

    def rank(self, question: str, depth: int) -> dict[str, list[str]]:
        """``{"bm25": [...], "dense": [...], "hybrid": [...]}``: source ids, best first, at
        most ``depth`` each (bm25 keeps only turns sharing a term with the question).

        Raises:
            InvalidInputError: ``depth`` < 1.
        """
        return self.rank_timed(question, depth)[0]


def session_recall(ranked: Sequence[str], gold: Sequence[str], session_of: Mapping[str, str],
                   k: int = SESSION_K) -> float:
    """1.0 when the session of any gold id is among the first ``k`` distinct sessions of
    ``ranked`` (ids without a session are passed over), else 0.0. Pure.

    Raises:
        InvalidInputError: ``k`` < 1, or no gold id with a session.
    """
    if k < 1:
        raise InvalidInputError(f"k must be a positive integer, got {k!r}")
    wanted = {session_of[g] for g in gold if g in session_of}
    if not wanted:
        raise InvalidInputError(f"no gold id of {list(gold)!r} names a turn with a session")
    seen: list[str] = []
    for sid in ranked:
        session = session_of.get(sid)
        if session is None or session in seen:
            continue
        seen.append(session)
        if session in wanted:
            return 1.0
        if len(seen) >= k:
            break
    return 0.0


def _ingest(mem: GraphMemory, conversations: Sequence[Conversation], prefix: str,
            tenants: dict[str, GraphMemory], say: Callable[[str], None]
            ) -> tuple[dict[str, PlainBaselines], dict[str, float]]:
    plain: dict[str, PlainBaselines] = {}
    seconds: dict[str, float] = defaultdict(float)
    for conv in conversations:
        tenants[conv.id] = ingest_tenant(mem, conv, prefix, say, seconds)
        began = time.perf_counter()
        plain[conv.id] = PlainBaselines(conv.turns, mem.embedder)
        seconds["baselines"] += time.perf_counter() - began
    return plain, {k: round(seconds[k], 1) for k in ("state", "associative", "baselines")}


def _memory_rankings(tenant: GraphMemory, question: str, depth: int,
                     setting: RetrievalSetting) -> tuple[dict[str, list[str]], dict[str, float]]:
    options = {} if setting.max_rounds is None else {"max_rounds": setting.max_rounds}
    ranked: dict[str, list[str]] = {}
    ms: dict[str, float] = {}
    began = time.perf_counter()
    ranked["fused"] = tenant.recall(question, k=depth).source_ids()
    ms["fused"] = (time.perf_counter() - began) * 1000
    for name in ("state", "associative"):
        began = time.perf_counter()
        ranked[name] = tenant.memory(name).recall(question, k=depth, **options).source_ids()
        ms[name] = (time.perf_counter() - began) * 1000
    return ranked, ms


def evaluate_corpus(mem: GraphMemory, corpus: str, conversations: Sequence[Conversation],
                    prefix: str, ks: Sequence[int] = (5, 10, 20),
                    max_questions: int | None = None,
                    settings: Sequence[RetrievalSetting] = (SHIPPED,),
                    progress: Callable[[str], None] | None = None,
                    keep: bool = False) -> dict[str, Any]:
    """Score every question with evidence of ``conversations`` by the memories and the plain
    baselines (see the module docstring), one tenant per conversation, all in the database at
    once; the tenants are deleted at the end unless ``keep``.

    Args:
        mem: the facade (connection, embedder). corpus: the corpus' name (``"locomo"``).
        prefix: tenant prefix. ks: recall cut-offs (must hold 10).
        max_questions: at most this many questions per conversation (None: all).
        settings: retrieval settings of the memories (the shipped one is run on the plain
            tenant and timed; the others on a read cache of the same frozen database).
        progress: called with a line per conversation and phase.
    Returns:
        JSON-ready dict: ``corpus``, ``conversations`` (ids), ``questions``,
        ``skipped_questions``, ``ks``, ``protocol``, ``settings``, ``loo`` (picks per memory,
        when leave-one-out applies), ``recall`` ({method: {category: {"recall@k", "questions"}}},
        ``"overall"`` included), ``session_recall@5`` ({method: {category: mean}}),
        ``per_conversation`` ({method: {conversation: recall@10 mean}}), ``latency_ms``
        ({method: {"p50", "p95"}}), ``ingest_seconds`` ({state, associative, baselines}) and
        ``per_question`` rows (conversation, category, question, gold, top 10 ids per method).
    Raises:
        InvalidInputError: no conversations, no settings, or ``ks`` without 10.
    """
    if not conversations or not settings:
        raise InvalidInputError("evaluate_corpus needs at least one conversation and setting")
    ks = tuple(int(k) for k in ks)
    if HEADLINE_K not in ks:
        raise InvalidInputError(f"ks must include {HEADLINE_K} (the reported cut-off), got "
                                f"{list(ks)!r}")
    say = progress or (lambda _msg: None)
    depth = max(ks)
    by_name = {s.name: s for s in settings}
    questions = {c.id: questions_of(c, max_questions) for c in conversations}
    tenants: dict[str, GraphMemory] = {}
    latency: dict[str, list[float]] = defaultdict(list)
    baseline: dict[str, dict[Key, list[str]]] = {m: {} for m in BASELINES}
    runs: dict[str, dict[str, dict[Key, list[str]]]] = {
        n: {m: {} for m in MEMORY_METHODS} for n in by_name}
    try:
        plain, ingest_seconds = _ingest(mem, conversations, prefix, tenants, say)
        for conv in conversations:
            asked = questions[conv.id][0]
            say(f"{conv.id}: {len(asked)} questions under {len(by_name)} setting(s)")
            tenant = tenants[conv.id]
            cached = tenant.scoped(tenant.namespace, wrap_runner=CachedReads)
            for i, q in enumerate(asked):
                ranked, ms = plain[conv.id].rank_timed(q["question"], depth)
                for m in BASELINES:
                    baseline[m][(conv.id, i)] = ranked[m]
                    latency[m].append(ms[m])
                rank_under_settings(tenant, cached, q["question"], depth, by_name,
                                    _memory_rankings, runs, (conv.id, i), latency)
            apply_setting(tenant, SHIPPED)
    finally:
        drop_tenants(tenants, keep)

    conv_ids = [c.id for c in conversations]
    keys = [(c, i) for c in conv_ids for i in range(len(questions[c][0]))]

    def question(key: Key) -> dict[str, Any]:
        return questions[key[0]][0][key[1]]

    def r10(ranked: dict[Key, list[str]], conv_id: str) -> list[float]:
        return [recall_at(ranked[k], question(k)["gold"], HEADLINE_K)
                for k in keys if k[0] == conv_id]

    names = list(by_name)
    leave_out = len(names) > 1 and len(conv_ids) > 1
    rankings: dict[str, dict[Key, list[str]]] = {}
    loo: dict[str, Any] = {}
    for m in MEMORY_METHODS:
        if not leave_out:
            rankings[m] = runs[names[0]][m]
            continue
        scores = {n: {c: r10(runs[n][m], c) for c in conv_ids} for n in names}
        picks, held = leave_one_out(scores, by_name)
        rankings[m] = {k: runs[picks[k[0]]][m][k] for k in keys}
        loo[m] = {"picks": picks, "per_conversation": {
            c: round(sum(v) / len(v), 4) if v else None for c, v in held.items()}}
    rankings.update(baseline)

    table = RecallTable(ks)
    sessions: dict[str, dict[str, list[float]]] = {m: defaultdict(list) for m in METHODS}
    session_of = {c.id: {t.source_id: t.session for t in c.turns} for c in conversations}
    for key in keys:
        q = question(key)
        for m in METHODS:
            table.add(m, q["category"], rankings[m][key], q["gold"])
            hit = session_recall(rankings[m][key], q["gold"], session_of[key[0]], SESSION_K)
            for cat in (category_name(q["category"]), "overall"):
                sessions[m][cat].append(hit)
    recall = table.table()
    return {
        "corpus": corpus,
        "conversations": conv_ids,
        "questions": len(keys),
        "skipped_questions": sum(s for _, s in questions.values()),
        "ks": list(ks),
        "protocol": (f"leave-one-conversation-out over {len(names)} settings" if leave_out
                     else f"setting {names[0]}"),
        "settings": {n: s.to_dict() for n, s in by_name.items()},
        "loo": loo,
        "recall": recall,
        f"session_recall@{SESSION_K}": {
            m: {c: round(sum(sessions[m][c]) / len(sessions[m][c]), 4)
                for c in recall.get(m, {})} for m in METHODS if m in recall},
        "per_conversation": {m: {c: round(sum(v) / len(v), 4) if (v := r10(rankings[m], c))
                                 else None for c in conv_ids} for m in METHODS},
        "latency_ms": {m: percentiles(v) for m, v in latency.items() if v},
        "ingest_seconds": ingest_seconds,
        "per_question": [{"conversation": key[0],
                          "category": category_name(question(key)["category"]),
                          "question": question(key)["question"], "gold": question(key)["gold"],
                          **{m: rankings[m][key][:HEADLINE_K] for m in METHODS}}
                         for key in keys],
    }

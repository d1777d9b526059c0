"""Retention's effect on recall and its cost (graphmem.agent.retention): prints one JSON document.

Effect: one bundled LoCoMo conversation (conv-26 by default) is ingested into state and
associative memory of a fresh namespace; recall@10 of the state memory, the associative memory
and the fused recall (``mem.recall`` over both) is measured on the conversation's questions
(LoCoMo evidence ids normalised, as ``graphmem eval`` scores them) before retention, after
``keep_last`` (default 100: every turn but the last 100 of the conversation archived, except
those a current state rests on), and after it with ``include_archived=True``. The questions are
also split by where their evidence lies: only in turns that stay live, or at least partly in
archived turns; and the rankings with ``include_archived=True`` are compared with those before.

Cost: ``--cost-units`` synthetic units per label (copies of the conversation's turns with
perturbed vectors and the engine's lexical properties, written straight to the store as
``graphmem bench``'s filler tenants are) are archived by an age rule that selects all of them,
in batches of ``--batch-size``; the run's seconds give seconds per 10,000 units archived. The
retain run on the real conversation is reported too.

Uses the Neo4j of the environment (``NEO4J_URI``, else the local launcher of ``GRAPHMEM_HOME``);
the namespaces it writes are deleted at the end.

    python benchmarks/retention_effect.py [--keep-last 100] [--cost-units 10000]
"""

from __future__ import annotations

import json
import os
import platform
import time
import uuid

import numpy as np

from graphmem.progress import quiet_model_loading

quiet_model_loading()  # before anything imports transformers

from locomo_args import conversations, parser  # noqa: E402

from graphmem.agent.retention import Retention, retain  # noqa: E402
from graphmem.evaluation.filler import perturb_text, perturb_vectors  # noqa: E402
from graphmem.evaluation.locomo import questions_of, turn_text  # noqa: E402
from graphmem.facade import GraphMemory  # noqa: E402
from graphmem.names import node_id  # noqa: E402
from graphmem.retrieval import unit_rows  # noqa: E402
from graphmem.state.evaluation import recall_at  # noqa: E402
from graphmem.timeparse import time_param  # noqa: E402

K = 10
METHODS = ("state", "associative", "fused")


def rankings(mem: GraphMemory, questions: list[dict], **options) -> dict[str, list[list[str]]]:
    """Per method, the source ids of the top ``K`` items of each question."""
    out: dict[str, list[list[str]]] = {m: [] for m in METHODS}
    for q in questions:
        out["state"].append(mem.state.recall(q["question"], k=K, **options).source_ids())
        out["associative"].append(mem.associative.recall(q["question"], k=K,
                                                         **options).source_ids())
        out["fused"].append(mem.recall(q["question"], k=K, memories=("state", "associative"),
                                       **options).source_ids())
    return out


def mean_recall(ranked: list[list[str]], questions: list[dict], keep: list[int]) -> float | None:
    values = [recall_at(ranked[i], questions[i]["gold"], K) for i in keep]
    return round(float(np.mean(values)), 4) if values else None


def synthetic_rows(ns: str, conv, vectors: np.ndarray, units: int, rng: np.random.Generator):
    """``(events, episodes)``: ``units`` copies of the conversation's turns (one conversation
    per copy), texts and vectors perturbed, with the engine's lexical properties."""
    events, episodes = [], []
    n = len(conv.turns)
    for j in range((units + n - 1) // n):
        count = min(n, units - j * n)
        turns = conv.turns[:count]
        texts = [perturb_text(turn_text(t), rng, j) for t in turns]
        vecs = perturb_vectors(vectors[:count], rng)
        lexical = unit_rows([{"speaker": None, "text": text, "timestamp": t.timestamp}
                             for t, text in zip(turns, texts, strict=True)], None, ns)
        for i, (turn, text, vec) in enumerate(zip(turns, texts, vecs, strict=True)):
            unit = {key: lexical[i][key] for key in ("lexical_terms", "lexical_length", "ns_token")}
            common = {"conversation": f"copy-{j}", "text": text, "speaker": turn.speaker,
                      "occurred_at": time_param(turn.timestamp), "embedding": vec.tolist(), **unit}
            events.append({"id": node_id(ns, "bench-event", j, i),
                           "source_ids": [turn.source_id], **common})
            episodes.append({"id": node_id(ns, "bench-episode", j, i),
                             "source_id": turn.source_id, **common})
    return events, episodes


def cost(mem: GraphMemory, conv, units: int, batch_size: int, prefix: str) -> dict:
    """Archive ``units`` synthetic units per label with an age rule that selects all of them."""
    tenant = mem.scoped(f"{prefix}-cost")
    vectors = mem.embedder.embed_documents([turn_text(t) for t in conv.turns])
    events, episodes = synthetic_rows(tenant.namespace, conv, np.asarray(vectors), units,
                                      np.random.default_rng(0))
    for start in range(0, len(events), 1000):
        tenant.query("bench/write_events", rows=events[start:start + 1000])
        tenant.query("bench/write_episodes", rows=episodes[start:start + 1000])
    rule = Retention(max_age_days=30)  # LoCoMo's turns are from 2023
    began = time.perf_counter()
    preview = retain(tenant, batch_size, dry_run=True, policy=rule)
    selected = time.perf_counter() - began
    began = time.perf_counter()
    report = retain(tenant, batch_size, policy=rule)
    seconds = time.perf_counter() - began
    archived = sum(report.archived.values())
    again = retain(tenant, batch_size, policy=rule)
    tenant.delete_namespace()
    return {"units_per_label": units, "batch_size": batch_size, "archived": report.archived,
            "batches": report.batches, "seconds": round(seconds, 3),
            "seconds_per_10k_units": round(seconds * 10_000 / archived, 3) if archived else None,
            "selection_only_seconds": round(selected, 3),
            "would_archive": preview.archived, "second_run_archived": again.archived,
            "second_run_seconds": round(again.seconds, 3)}


def main() -> None:
    options = parser(__doc__.splitlines()[0], rounds=1)
    options.add_argument("--keep-last", type=int, default=100,
                         help="units kept per conversation in the recall measurement")
    options.add_argument("--cost-units", type=int, default=10_000,
                         help="synthetic units per label archived in the cost measurement")
    options.add_argument("--batch-size", type=int, default=1_000, help="units per write")
    options.add_argument("--max-questions", type=int, default=None)
    args = options.parse_args()
    conv, _ = conversations(args)
    questions, skipped = questions_of(conv, args.max_questions)
    prefix = f"retention-effect-{uuid.uuid4().hex[:8]}"
    out: dict = {"conversation": conv.id, "turns": len(conv.turns), "questions": len(questions),
                 "questions_without_valid_evidence": skipped, "k": K,
                 "policy": {"keep_last": args.keep_last},
                 "machine": {"cpus": os.cpu_count(), "python": platform.python_version()}}
    with GraphMemory.from_settings(migrate=True) as root:
        mem = root.scoped(f"{prefix}-locomo")
        try:
            began = time.perf_counter()
            mem.state.ingest([conv])
            mem.associative.ingest([conv])
            out["ingest_seconds"] = round(time.perf_counter() - began, 1)
            rankings(mem, questions[:3])                     # the vector cache loads
            before = rankings(mem, questions)
            counts = mem.counts()
            # the turns the policy archives: those the count rule selects, less the pinned ones
            [selection] = mem.query("state/find_archivable_units", cutoff=None,
                                    keep_last=args.keep_last)
            chosen = {c[0] for c in selection["candidates"]} - set(selection["pinned"])
            events = mem.query("state/conversation_events", conversation=conv.id, skip=0,
                               limit=100_000)
            archived_turns = {e["source_ids"][0] for e in events if e["id"] in chosen}
            mem.set_retention(keep_last=args.keep_last)
            report = mem.retain(batch_size=args.batch_size)
            out["retain"] = report.model_dump(mode="json", exclude={"policy", "cutoff"})
            out["counts_unchanged"] = mem.counts() == counts
            after = rankings(mem, questions)
            restored = rankings(mem, questions, include_archived=True)
            everyone = list(range(len(questions)))
            live_only = [i for i, q in enumerate(questions) if not set(q["gold"]) & archived_turns]
            touched = [i for i, q in enumerate(questions) if set(q["gold"]) & archived_turns]
            out["archived_turns"] = len(archived_turns)
            out["recall@10"] = {m: {"before": mean_recall(before[m], questions, everyone),
                                    "after": mean_recall(after[m], questions, everyone),
                                    "include_archived": mean_recall(restored[m], questions,
                                                                    everyone)}
                                for m in METHODS}
            out["by_evidence"] = {
                name: {"questions": len(keep), **{m: {
                    "before": mean_recall(before[m], questions, keep),
                    "after": mean_recall(after[m], questions, keep)} for m in METHODS}}
                for name, keep in (("evidence_live", live_only),
                                   ("evidence_archived", touched))}
            out["include_archived_same_ranking"] = {
                m: f"{sum(a == b for a, b in zip(before[m], restored[m], strict=True))}"
                   f"/{len(questions)}" for m in METHODS}
        finally:
            mem.delete_namespace()
        out["cost"] = cost(root, conv, args.cost_units, args.batch_size, prefix)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

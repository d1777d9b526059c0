"""HybridSearch on a real Neo4j: lexical, paraphrase and neighbour questions over two tenants,
per-namespace score isolation against 5,000 foreign units, and p50 latency of one search on a
600-unit tenant among 10,000 foreign units (printed, not asserted: ``graphmem bench`` measures
latency at scale)."""

from __future__ import annotations

import json
import statistics
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.retrieval import HybridSearch, unit_rows
from graphmem.retrieval.text import CONTEXT_WORDS, analyze, namespace_token

try:  # 2 shared cores: keep the embedder on one thread
    import torch

    torch.set_num_threads(1)
except Exception:  # pragma: no cover
    pass

TEST_CYPHER = Path(__file__).parent / "cypher"
S1 = datetime(2023, 5, 8, 14, 0, tzinfo=timezone.utc)   # a Monday
S2 = datetime(2023, 5, 20, 10, 0, tzinfo=timezone.utc)

TENANT_A = [  # (session, speaker, text)
    ("s1", "Mel", "Hey Caroline, good to see you! How have you been?"),
    ("s1", "Caroline", "Busy! I went to a pottery class last Saturday and made a blue bowl."),
    ("s1", "Mel", "That's lovely. I finally finished painting my kitchen walls yellow."),
    ("s1", "Caroline", "I adopted a golden retriever puppy named Biscuit two weeks ago."),
    ("s1", "Mel", "Wow, cool!"),
    ("s1", "Caroline", "My sister is moving to Lisbon next month for a job at a bank."),
    ("s1", "Mel", "What instrument have you been learning lately?"),
    ("s1", "Caroline", "The violin, since March."),
    ("s1", "Mel", "I ran a half marathon in Boston last year and finished in two hours."),
    ("s1", "Caroline", "Impressive! I could never run that far."),
    ("s2", "Mel", "Caroline, how did the job interview at the museum go?"),
    ("s2", "Caroline", "They offered me the curator position yesterday!"),
    ("s2", "Mel", "Congratulations! When do you start?"),
    ("s2", "Caroline", "In June, right after my trip to Japan."),
    ("s2", "Mel", "I'm reading a novel about a lighthouse keeper in Scotland."),
    ("s2", "Caroline", "Biscuit chewed my favourite sneakers this morning."),
    ("s2", "Mel", "Puppies do that. Did you try chew toys?"),
    ("s2", "Caroline", "Yes, he prefers shoes, sadly."),
    ("s2", "Mel", "My garden tomatoes are finally ripe."),
    ("s2", "Caroline", "Bring some over this weekend!"),
]
TENANT_B = [
    ("s1", "Jon", "Gina, I signed up for a pottery class at the community center."),
    ("s1", "Gina", "Nice, I want to learn the violin this year."),
    ("s1", "Jon", "My cousin has a puppy, a tiny beagle."),
    ("s1", "Gina", "I visited Lisbon in April and loved the trams."),
    ("s1", "Jon", "What instrument did your father play?"),
    ("s1", "Gina", "The cello, for forty years."),
    ("s1", "Jon", "My dance studio opened last month downtown."),
    ("s1", "Gina", "I lost my job at the bank yesterday."),
    ("s1", "Jon", "Sorry to hear that. Any plans?"),
    ("s1", "Gina", "Maybe a trip to Japan to clear my head."),
    ("s2", "Jon", "The museum has a new exhibit on golden retriever art."),
    ("s2", "Gina", "Funny! I bought blue shoes for the wedding."),
    ("s2", "Jon", "My marathon training starts next week."),
    ("s2", "Gina", "I read a novel about a Scottish lighthouse."),
    ("s2", "Jon", "The tomatoes in my garden died."),
    ("s2", "Gina", "Try growing peppers instead."),
    ("s2", "Jon", "Did you finish painting the kitchen?"),
    ("s2", "Gina", "Yes, it is yellow now."),
    ("s2", "Jon", "Great, let's meet this weekend."),
    ("s2", "Gina", "Sure, see you Saturday."),
]
LEXICAL_Q = "When did Caroline make a blue bowl at the pottery class?"
DENSE_Q = "Which dog breed is Caroline's new pet?"
NEIGHBOUR_Q = "Which instrument has Caroline been learning?"


@pytest.fixture(scope="module")
def test_runner(runner: QueryRunner) -> QueryRunner:
    return QueryRunner(runner.driver, CypherRegistry.load(TEST_CYPHER), database=runner.database)


def _turns(items: list[tuple[str, str, str]], prefix: str) -> list[dict[str, Any]]:
    return [dict(id=f"{prefix}{i:02d}", session=s, speaker=spk, text=text,
                 timestamp=S1 if s == "s1" else S2, source_ids=[f"{prefix}{i:02d}"])
            for i, (s, spk, text) in enumerate(items)]


def _write(test_runner: QueryRunner, embedder, namespace: str, turns: list[dict],
           label: str = "Event") -> None:
    rows = unit_rows(turns, None, namespace=namespace, ids=[t["id"] for t in turns])
    vectors = embedder.embed_documents([r["window_text"] for r in rows])
    out = []
    for i, (turn, row) in enumerate(zip(turns, rows)):
        row = {k: v for k, v in row.items() if k != "window_text"}
        row.update(id=turn["id"], text=turn["text"], speaker=turn["speaker"],
                   source_ids=turn["source_ids"], embedding=[float(x) for x in vectors[i]])
        out.append(row)
    test_runner.write(f"write_retrieval_{label.lower()}s", namespace=namespace, rows=out)


def _snapshot(results) -> list[tuple]:
    return [(c.id, c.score, tuple(sorted(c.components.items()))) for c in results]


@pytest.fixture
def two_tenants(runner, test_runner, embedder):
    a, b = f"test-a-{uuid.uuid4().hex[:8]}", f"test-b-{uuid.uuid4().hex[:8]}"
    _write(test_runner, embedder, a, _turns(TENANT_A, f"{a}:"))
    _write(test_runner, embedder, b, _turns(TENANT_B, f"{b}:"))
    # units whose stored vector is unusable: wrong width, and not finite
    bad = unit_rows([dict(speaker="Caroline", text="A note on pottery glaze colours.",
                          timestamp=S2, session="s9")], None, namespace=a)[0]
    for suffix, vector in (("w", [0.1, 0.2, 0.3]), ("n", [float("nan")] * 384)):
        row = {k: v for k, v in bad.items() if k != "window_text"}
        row.update(id=f"{a}:bad-{suffix}", text="A note on pottery glaze colours.", speaker="Caroline",
                   source_ids=[], embedding=vector)
        test_runner.write("write_retrieval_events", namespace=a, rows=[row])
    yield a, b
    for ns in (a, b):
        runner.write("core/delete_namespace", namespace=ns)


def test_lexical_dense_and_neighbour_questions(runner, embedder, two_tenants) -> None:
    a, b = two_tenants
    search = HybridSearch(runner, "Event")

    lexical = search.search(a, LEXICAL_Q, embedder.embed_query(LEXICAL_Q), k=5)
    assert lexical[0].id == f"{a}:01"
    assert lexical[0].flags["via_lexical"] and lexical[0].components["lexical"] > 0
    assert all(c.id.startswith(a) for c in lexical)

    dense = search.search(a, DENSE_Q, embedder.embed_query(DENSE_Q), k=5)
    # a paraphrase: no shared term, found by the dense side, the best cosine of all; in the top
    # two (it ties within 0.03 with Caroline's shortest turn, which BM25 lifts for her name)
    assert not set(analyze(DENSE_Q)) & set(analyze(TENANT_A[3][2]))
    assert f"{a}:03" in [c.id for c in dense[:2]]
    hit = next(c for c in dense if c.id == f"{a}:03")
    assert hit.flags["via_dense"] and hit.components["dense_norm"] == 1.0

    neighbour = search.search(a, NEIGHBOUR_Q, embedder.embed_query(NEIGHBOUR_Q), k=5)
    print("neighbour question:", [(c.id, round(c.score, 3), round(c.components["neighbour"], 3))
                                  for c in neighbour])
    ids = [c.id for c in neighbour]
    assert f"{a}:07" in ids[:2] and f"{a}:06" in ids[:2]
    answer = neighbour[ids.index(f"{a}:07")]
    assert answer.components["neighbour"] > 0
    assert [s.action for s in answer.path][-1] == "NEXT_TURN" and answer.path[0].id == f"{a}:06"

    # unusable stored vectors are skipped, not fatal: the glaze note is found lexically only
    glaze = search.search(a, "glaze colours", embedder.embed_query("glaze colours"), k=10)
    top = {c.id: c for c in glaze}
    assert f"{a}:bad-w" in top and f"{a}:bad-n" in top
    for c in glaze:
        if "bad-" in c.id:
            assert "dense" not in c.components

    # tenant B is searched on its own statistics and sees none of A
    other = search.search(b, NEIGHBOUR_Q, embedder.embed_query(NEIGHBOUR_Q), k=5)
    assert all(c.id.startswith(b) for c in other)
    assert search.last_details["units"] == 20


def test_episode_label_uses_its_own_query(runner, test_runner, embedder, namespace) -> None:
    _write(test_runner, embedder, namespace, _turns(TENANT_A[:10], f"{namespace}:"), label="Episode")
    out = HybridSearch(runner, "Episode").search(namespace, LEXICAL_Q, embedder.embed_query(LEXICAL_Q), 3)
    assert out[0].id == f"{namespace}:01" and out[0].path[-1].node == "episode"
    assert all(step.node in ("episode", "speaker") for c in out for step in c.path)


def _noise(test_runner, namespace: str, count: int, words: list[str], center: list[float],
           spread: float = 0.6, batch: int = 5000) -> None:
    for start in range(0, count, batch):
        test_runner.write("write_retrieval_noise", namespace=namespace,
                          ns_token=namespace_token(namespace), start=start,
                          count=min(batch, count - start), words=words, center=center, spread=spread)


@pytest.mark.parametrize("cache", ["0", "1"])
def test_tenant_scores_do_not_move_with_other_tenants_writes(runner, test_runner, embedder,
                                                             two_tenants, cache,
                                                             monkeypatch) -> None:
    """Both dense sources: the database scan (vector cache off) and the in-process vector cache
    (loaded before; other namespaces' writes leave the tenant's cache token unchanged)."""
    a, _ = two_tenants
    monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", cache)
    search = HybridSearch(runner, "Event")
    questions = [LEXICAL_Q, DENSE_Q, NEIGHBOUR_Q, "Lisbon job bank sister"]
    vectors = {q: embedder.embed_query(q) for q in questions}
    for _ in range(2):
        search.fetch(a, DENSE_Q, vectors[DENSE_Q])
    mode = search.fetch(a, DENSE_Q, vectors[DENSE_Q])["dense_mode"]
    assert mode == ("cache" if cache == "1" else "exact")
    before = {q: _snapshot(search.search(a, q, vectors[q], k=10)) for q in questions}
    words = sorted({w for _, _, t in TENANT_A for w in analyze(t)} | {"caroline", "mel"})
    foreign = [f"test-noise-{uuid.uuid4().hex[:8]}" for _ in range(5)]
    try:
        for ns in foreign:  # 5 x 1,000 units sharing A's words, vectors near A's questions
            _noise(test_runner, ns, 1000, words, [float(x) for x in vectors[DENSE_Q]], spread=0.5)
        after = {q: _snapshot(search.search(a, q, vectors[q], k=10)) for q in questions}
    finally:
        for ns in foreign:
            runner.write("core/delete_namespace", namespace=ns)
    for q in questions:
        assert after[q] == before[q], q


def _locomo_tenant(shared_data: Path, cache_dir: Path, embedder, n: int = 600):
    from graphmem.conversations import read_locomo

    conv = max(read_locomo(shared_data / "locomo" / "locomo-dev.json"), key=lambda c: len(c.turns))
    turns = [dict(id=t.source_id, session=t.session, speaker=t.speaker, text=t.text,
                  timestamp=t.timestamp, source_ids=[t.source_id]) for t in conv.turns[:n]]
    questions = [q.question for q in conv.qa[:30]]
    rows = unit_rows(turns, None, namespace="x")
    cache = cache_dir / f"locomo-{conv.id}-{n}-w{CONTEXT_WORDS}.npz"
    if cache.exists():
        data = np.load(cache)
        docs, qv = data["docs"], data["q"]
    else:
        docs = embedder.embed_documents([r["window_text"] for r in rows])
        qv = embedder.embed_documents(questions)
        np.savez(cache, docs=docs, q=qv)
    return turns, docs, questions, qv


def test_600_units_among_10000_foreign_get_only_their_own(runner, test_runner, embedder, sample_data,
                                               pytestconfig, tmp_path_factory, monkeypatch) -> None:
    cache = getattr(pytestconfig, "cache", None)  # embeddings cached across runs when possible
    cache_dir = Path(cache.mkdir("retrieval-engine")) if cache else tmp_path_factory.mktemp("emb")
    turns, docs, questions, qv = _locomo_tenant(sample_data, cache_dir, embedder)
    ns = f"test-lat-{uuid.uuid4().hex[:8]}"
    for t in turns:
        t["id"] = f"{ns}:{t['id']}"
    rows = unit_rows(turns, docs, namespace=ns, ids=[t["id"] for t in turns])
    out = []
    for turn, row in zip(turns, rows):
        row = {k: v for k, v in row.items() if k != "window_text"}
        row.update(id=turn["id"], text=turn["text"], speaker=turn["speaker"],
                   source_ids=turn["source_ids"])
        out.append(row)
    words = sorted({w for r in rows for w in r["lexical_terms"].split()})
    foreign = [f"test-noise-{uuid.uuid4().hex[:8]}" for _ in range(9)]
    big = foreign[0]  # 2,000 units (EXACT_LIMIT), the other 8 tenants 1,000 each
    try:
        for start in range(0, len(out), 200):
            test_runner.write("write_retrieval_events", namespace=ns, rows=out[start:start + 200])
        for i, f in enumerate(foreign):  # 10,000 foreign units sharing its words, 5x the
            # exact-scan limit and 20x the vector index's window: every candidate path is crowded
            _noise(test_runner, f, 2000 if f == big else 1000, words,
                   [float(x) for x in qv[i % len(qv)]], spread=1.0)
        search = HybridSearch(runner, "Event")
        for q, v in zip(questions[:3], qv[:3]):  # warm up plans and caches
            search.search(ns, q, v, k=10)
        times = []
        for q, v in zip(questions, qv):
            t0 = time.perf_counter()
            res = search.search(ns, q, v, k=10)
            times.append(time.perf_counter() - t0)
            assert res and all(c.id.startswith(ns) for c in res)
        # EXACT_LIMIT measurement: a 2,000-unit foreign tenant, the database's exact scan vs
        # the vector index (the in-process vector cache off: both read the database)
        monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", "0")
        exact = HybridSearch(runner, "Event", exact_limit=10**9)
        index = HybridSearch(runner, "Event", exact_limit=0)
        t_exact, t_index = [], []
        for q, v in zip(questions[:10], qv[:10]):
            t0 = time.perf_counter()
            exact.search(big, q, v, k=10)
            t_exact.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            index.search(big, q, v, k=10)
            t_index.append(time.perf_counter() - t0)
            assert index.last_details["dense_mode"] in ("vector_index", "exact_fallback")
        report = {"p50_ms": round(1000 * statistics.median(times), 1),
                  "p95_ms": round(1000 * sorted(times)[int(0.95 * (len(times) - 1))], 1),
                  "searches": len(times), "tenant_units": len(out), "foreign_units": 10000,
                  "dense_mode": search.last_details["dense_mode"],
                  "candidates": search.last_details["candidates"],
                  "exact_scan_2000_p50_ms": round(1000 * statistics.median(t_exact), 1),
                  "vector_index_2000_p50_ms": round(1000 * statistics.median(t_index), 1)}
        print("\nRETRIEVAL LATENCY " + json.dumps(report))
    finally:
        for f in [ns, *foreign]:
            runner.write("core/delete_namespace", namespace=f)

"""Concurrent writers on the real Neo4j: no lost update, no duplicate node or relationship, and
deadlocks / transient errors retried by the driver's managed transactions (nothing surfaces).

The big 3 writers x 100 feedback run on one insight is tests/integration/test_insight_concurrency.py;
these add the races it does not cover (same evidence edge, same query, opposite lock order,
same experience build)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from reliability import MemoEmbedder, counts, tq, trajectory  # noqa: F401

from graphmem.experience import ExperienceMemory
from graphmem.insight import InsightMemory

WRITERS = 4


def _together(n: int, fn) -> list:
    """Run ``fn(i)`` for i in 0..n-1 in n threads released at the same moment."""
    barrier = threading.Barrier(n)

    def run(i: int):
        barrier.wait()
        return fn(i)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n)))


def test_same_evidence_edge_from_many_writers_counts_once(runner, embedder, namespace) -> None:
    mem = InsightMemory(runner, MemoEmbedder(embedder), namespace, related_top=0)
    mem.embedder.embed_documents([f"Which river flows through city {i}?" for i in range(WRITERS)])
    seed = mem.add_query("Which river flows through Lyon?", "resolved", ["search[Lyon]"])
    insight = mem.add_insight("Check the city's Wikipedia infobox.", [seed])
    others = [mem.add_query(f"Which river flows through city {i}?", "resolved", [])
              for i in range(WRITERS)]

    # every writer adds the SAME query to Omega- and its own query to Omega+
    def write(i: int) -> None:
        for _ in range(5):
            mem.record_evidence(insight, others[0], positive=False)
            mem.record_evidence(insight, others[i], positive=True)

    _together(WRITERS, write)
    [state] = mem.get_insights([insight])
    assert state.negative_evidence == 1 and state.conflicting_query_ids == [others[0]]
    assert state.positive_evidence == 1 + WRITERS
    assert sorted(state.supporting_query_ids) == sorted([seed, *others])


def test_opposite_lock_order_deadlocks_are_retried(runner, embedder, namespace, caplog) -> None:
    mem = InsightMemory(runner, MemoEmbedder(embedder), namespace, related_top=0)
    rounds = 10
    mem.embedder.embed_documents([f"Rome question {w}-{r}" for w in range(WRITERS)
                                  for r in range(rounds)])
    seed = mem.add_query("How old is the Colosseum?", "resolved", [])
    first = mem.add_insight("Insight one about Rome.", [seed])
    second = mem.add_insight("Insight two about Rome.", [seed])
    caplog.set_level("WARNING", logger="neo4j")
    queries = [[mem.add_query(f"Rome question {w}-{r}", "resolved", []) for r in range(rounds)]
               for w in range(WRITERS)]

    def write(w: int) -> None:   # even writers lock first->second, odd ones second->first
        order = [first, second] if w % 2 == 0 else [second, first]
        for q in queries[w]:
            runner.write("insight/add_positive_evidence", namespace=namespace, query_id=q,
                         insight_ids=order)

    before = runner.retry_stats()
    _together(WRITERS, write)
    retried = [r for r in caplog.records if "will be retried" in r.getMessage()]
    print(f"\n{len(retried)} transaction(s) retried by the driver: "
          f"{sorted({r.getMessage()[-90:] for r in retried})}")
    # the runner counts exactly the retries the driver logs, with their error codes
    after = runner.retry_stats()
    assert after["retries"] - before["retries"] == len(retried)
    codes = {k: v - before["by_code"].get(k, 0) for k, v in after["by_code"].items()}
    assert all(k.startswith("Neo.TransientError.") for k, v in codes.items() if v), codes
    assert sum(codes.values()) <= len(retried)   # a failed commit is retried but not coded
    for state in mem.get_insights([first, second]):
        assert state.positive_evidence == 1 + WRITERS * rounds
        assert len(state.supporting_query_ids) == 1 + WRITERS * rounds


def test_same_query_and_trajectory_from_many_writers_is_one_chain(runner, embedder, tq,
                                                                   namespace) -> None:
    mem = InsightMemory(runner, MemoEmbedder(embedder), namespace, related_top=0)
    steps = ["search[Kiel]", "lookup[harbour]", "finish[SUPPORTS]"]
    mem.embedder.embed_documents(["Is Kiel a port city?"])
    ids = _together(WRITERS, lambda i: mem.add_query("Is Kiel a port city?", "resolved", steps))
    assert len(set(ids)) == 1
    assert mem.counts()["Query"] == 1 and mem.counts()["Step"] == 3
    # Query -FIRST_STEP-> s0 -NEXT_STEP-> s1 -NEXT_STEP-> s2: exactly 3 relationships
    assert counts(tq, namespace) == {"nodes": 4, "relationships": 3}


def test_same_experience_build_from_many_writers_creates_nothing_twice(runner, embedder, tq,
                                                                       namespace) -> None:
    memo = MemoEmbedder(embedder)
    experts = [trajectory(f"task-{i}", f"boil water in pot {i}",
                          ["go to stove 1", f"take pot {i} from shelf 1", "heat pot 1"])
               for i in range(4)]
    exploration = trajectory("task-0", "boil water in pot 0",
                             ["go to stove 1", "open fridge 1", "take pot 0 from shelf 1"],
                             reward=0.0, kind="exploration")
    single = ExperienceMemory(runner=runner, embedder=memo, namespace=namespace + "-single")
    try:
        single.ingest(experts, explorations=[exploration], k=2, tau=-1.0)
        expected_counts = single.counts()
        expected_any = counts(tq, namespace + "-single")
    finally:
        runner.write("core/delete_namespace", namespace=namespace + "-single")
    mem = ExperienceMemory(runner=runner, embedder=memo, namespace=namespace)
    _together(WRITERS, lambda i: mem.ingest(experts, explorations=[exploration], k=2,
                                                tau=-1.0))
    assert mem.counts() == expected_counts
    assert counts(tq, namespace) == expected_any


def _relationships(tq, namespace: str) -> dict[str, tuple[int, int]]:
    return {r["type"]: (r["relationships"], r["distinct_pairs"])
            for r in tq.read("count_relationships", namespace=namespace)}


def test_one_topic_state_from_many_writers_has_exactly_one_current_state(
        runner, embedder, tq, namespace) -> None:
    from datetime import datetime, timedelta, timezone

    from graphmem.conversations import Conversation, Turn
    from graphmem.state import StateMemory

    memo = MemoEmbedder(embedder)
    cities = ["Berlin", "Lisbon", "Porto", "Oslo", "Kiel", "Riga", "Bern", "Graz"]
    per_writer = 2
    t0 = datetime(2024, 1, 1, tzinfo=timezone.utc)

    def conv(w: int, r: int) -> Conversation:
        i = w * per_writer + r
        turn = Turn(source_id=f"D1:{i}", speaker="Alice", text=f"I live in {cities[i]} now.",
                    timestamp=t0 + timedelta(days=i * 7 + (3 if w % 2 else 0)), position=i,
                    meta={"attribute": "home_city", "person": "Alice", "value": cities[i]})
        return Conversation(id="conv-1", turns=[turn], speakers=["Alice"])

    memo.embed_documents([f"Alice: I live in {c} now." for c in cities]
                         + [f"Alice's home city is {c}" for c in cities] + ["Alice home city"])
    mem = StateMemory(runner, memo, namespace)
    _together(WRITERS, lambda w: [mem.ingest([conv(w, r)]) for r in range(per_writer)])

    n = WRITERS * per_writer
    rels = _relationships(tq, namespace)
    assert rels["CURRENT_STATE"] == (1, 1)
    assert rels["INITIAL_STATE"] == (1, 1) and rels["FIRST_TIMELINE_NODE"] == (1, 1)
    assert rels["TEMPORAL_NEXT"] == (n - 1, n - 1)              # one chain through all events
    assert all(total == distinct for total, distinct in rels.values()), rels
    states = tq.read("read_nodes", namespace=namespace, label="State")
    topics = tq.read("read_nodes", namespace=namespace, label="Topic")
    assert len(topics) == 1 and len(states) == n
    latest = max(states, key=lambda s: s["props"]["valid_from"])
    current = [s for s in states if s["props"].get("valid_to") is None]
    assert [s["id"] for s in current] == [latest["id"]]        # the newest claim is current


def test_shared_cue_from_many_writers_is_one_node(runner, embedder, tq, namespace) -> None:
    from reliability import conversation

    from graphmem.associative import AssociativeMemory

    memo = MemoEmbedder(embedder)
    convs = [conversation(f"conv-{w}", [("Alice", f"I drive my truck Mohra to Kiel on day {w}."),
                                        ("Bob", f"Mohra again? Say hi to Mohra from Bob {w}.")])
             for w in range(WRITERS)]
    mem = AssociativeMemory(runner, memo, namespace)
    _together(WRITERS, lambda w: mem.ingest([convs[w]]))
    cues = [r["props"]["text"] for r in tq.read("read_nodes", namespace=namespace, label="Cue")]
    assert cues.count("mohra") == 1 and len(cues) == len(set(cues))
    tags = [(r["props"]["cue_id"], r["props"]["text"])
            for r in tq.read("read_nodes", namespace=namespace, label="Tag")]
    assert len(tags) == len(set(tags))
    rels = _relationships(tq, namespace)
    assert all(total == distinct for total, distinct in rels.values()), rels
    counts_once = mem.counts()
    mem.ingest(convs)                              # and a sequential re-ingest
    assert mem.counts() == counts_once

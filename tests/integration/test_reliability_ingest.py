"""Atomic, idempotent ingest on the real Neo4j, for each memory's ingest/build path:

- ingesting the same input again adds nothing (node and relationship counts equal);
- a failure injected in the middle (the embedder raising on item 50 of 100, or a crash inside
  a write transaction after some of its statements ran) leaves no half-written unit of work;
- running again completes it, to exactly what one clean run gives.
"""

from __future__ import annotations

import pytest
from reliability import FailingEmbedder, FailingRunner, MemoEmbedder, counts, tq, trajectory  # noqa: F401

from graphmem.experience import ExperienceMemory
from graphmem.insight import InsightMemory
from graphmem.names import node_id
from graphmem.retrieval import window_texts

N = 100


# ---------------------------------------------------------------- insight memory
def _records(n: int = N) -> list[dict]:
    return [{"query": f"Verify claim {i}: the bridge in town {i} is older than 100 years",
             "status": "resolved" if i % 3 else "failed",
             "trajectory": [f"search[bridge {i}]", f"lookup[year {i}]", "finish[SUPPORTS]"],
             "task_id": f"claim-{i}"} for i in range(n)]


def _query_units(tq, namespace: str) -> dict[str, tuple[int, int]]:
    """For each stored Query: (steps stored, decisions stored) — a unit is all or nothing."""
    steps: dict[str, int] = {}
    for r in tq.read("read_nodes", namespace=namespace, label="Step"):
        steps[r["props"]["query_id"]] = steps.get(r["props"]["query_id"], 0) + 1
    decisions: dict[str, int] = {}
    for r in tq.read("read_nodes", namespace=namespace, label="ControllerDecision"):
        decisions[r["props"]["query_id"]] = decisions.get(r["props"]["query_id"], 0) + 1
    return {r["id"]: (steps.get(r["id"], 0), decisions.get(r["id"], 0))
            for r in tq.read("read_nodes", namespace=namespace, label="Query")}


def test_insight_feedback_failure_mid_ingest_then_rerun(runner, embedder, tq, namespace) -> None:
    records = _records()
    memo = MemoEmbedder(embedder)
    memo.embed_documents([r["query"] for r in records])

    # 1) the embedder fails on item 50 of 100: records 1..49 land whole, nothing of the rest
    failing = FailingEmbedder(embedder, fail_on=records[49]["query"])
    failing.memo = memo.memo
    mem = InsightMemory(runner, failing, namespace, related_top=2, related_threshold=0.8)
    with pytest.raises(RuntimeError, match="claim 49"):
        mem.ingest(records)
    units = _query_units(tq, namespace)
    assert len(units) == 49
    assert all(steps == 3 and decisions >= 1 for steps, decisions in units.values())

    # 2) a crash inside the write transaction of the next record (after 2 of its statements)
    crashing = InsightMemory(FailingRunner(runner, fail_on=3), memo, namespace, related_top=2,
                             related_threshold=0.8)
    with pytest.raises(RuntimeError, match="injected crash"):
        crashing.ingest(records[49:50])
    assert _query_units(tq, namespace) == units          # nothing of record 50 landed

    # 3) running again completes it; a third run adds no query, step or insight
    mem = InsightMemory(runner, memo, namespace, related_top=2, related_threshold=0.8)
    mem.ingest(records[49:])
    units = _query_units(tq, namespace)
    assert len(units) == N and all(s == 3 and d >= 1 for s, d in units.values())
    stats = mem.graph_summary()
    mem.ingest(records[:10])
    again = mem.graph_summary()
    for key in ("queries", "steps", "active_insights", "revisions"):
        assert again[key] == stats[key], key


def test_insight_add_query_is_idempotent(runner, embedder, tq, namespace) -> None:
    mem = InsightMemory(runner, MemoEmbedder(embedder), namespace, related_top=3,
                        related_threshold=0.5)
    for r in _records(20):
        mem.add_query(r["query"], r["status"], r["trajectory"], task_id=r["task_id"])
    first = counts(tq, namespace)
    for r in _records(20):
        mem.add_query(r["query"], r["status"], r["trajectory"], task_id=r["task_id"])
    assert counts(tq, namespace) == first


# ---------------------------------------------------------------- experience memory
def _experts(n: int = N) -> list:
    return [trajectory(f"task-{i}", f"put the cup {i} in the cabinet {i % 7}",
                       ["go to table 1", f"take cup {i} from table 1", f"go to cabinet {i % 7}",
                        f"put cup {i} in/on cabinet {i % 7}"]) for i in range(n)]


def _explorations() -> list:
    return [trajectory(f"task-{i}", f"put the cup {i} in the cabinet {i % 7}",
                       ["go to table 1", "open drawer 1", f"take cup {i} from table 1"],
                       reward=0.0, kind="exploration") for i in (3, 60)]


def test_experience_build_failure_mid_ingest_then_rerun(runner, embedder, tq, namespace) -> None:
    memo = MemoEmbedder(embedder)
    experts, explorations = _experts(), _explorations()
    clean_ns = namespace + "-clean"
    try:
        ExperienceMemory(runner=runner, embedder=memo, namespace=clean_ns).ingest(
            experts, explorations=explorations, k=2, tau=0.5)
        clean = counts(tq, clean_ns)
        clean_memory = ExperienceMemory(runner=runner, embedder=memo, namespace=clean_ns).counts()
    finally:
        runner.write("core/delete_namespace", namespace=clean_ns)

    # 1) the embedder fails on item 50 of 100: nothing is written (embedding precedes writes)
    failing = FailingEmbedder(embedder, fail_at=50)
    failing.memo = memo.memo
    with pytest.raises(RuntimeError, match="item 50"):
        ExperienceMemory(runner=runner, embedder=failing, namespace=namespace).ingest(
            experts, explorations=explorations, k=2, tau=0.5)
    assert counts(tq, namespace) == {"nodes": 0, "relationships": 0}

    # 2) a crash inside the SECOND batch transaction (tasks 25..49; 25 tasks per transaction),
    #    after its first 3 statements ran: batch 1 is whole, nothing of batch 2 landed
    crashing = ExperienceMemory(runner=FailingRunner(runner, fail_on=4), embedder=memo,
                                namespace=namespace)
    _crash_in_second_batch(crashing, experts, explorations)
    tasks = {r["props"]["task_key"] for r in tq.read("read_nodes", namespace=namespace, label="Task")}
    assert tasks == {f"task-{i}" for i in range(25)}
    graphs = tq.read("read_nodes", namespace=namespace, label="DecisionGraph")
    assert {g["props"]["task_key"] for g in graphs} == tasks       # every stored task is whole
    assert len(graphs) == 25 + 2                                    # + exploration, common of task-3

    # 3) running again completes it to exactly one clean run; again adds nothing
    mem = ExperienceMemory(runner=runner, embedder=memo, namespace=namespace)
    mem.ingest(experts, explorations=explorations, k=2, tau=0.5)
    assert counts(tq, namespace) == clean and mem.counts() == clean_memory
    mem.ingest(experts, explorations=explorations, k=2, tau=0.5)
    assert counts(tq, namespace) == clean
    assert node_id(namespace, "task", "task-0") in {
        r["id"] for r in tq.read("read_nodes", namespace=namespace, label="Task")}


def _crash_in_second_batch(memory: ExperienceMemory, experts, explorations) -> None:
    """Let the first write transaction pass and crash the second one at its 4th statement."""
    runner = memory.runner
    runner.remaining = 0
    calls = {"n": 0}
    original = runner.write_many

    def write_many(steps):
        calls["n"] += 1
        runner.remaining = 1 if calls["n"] == 2 else 0
        return original(steps)

    runner.write_many = write_many
    with pytest.raises(RuntimeError, match="injected crash"):
        memory.ingest(experts, explorations=explorations, k=2, tau=0.5)
    assert calls["n"] == 2


# ---------------------------------------------------------------- state and associative memory
PEOPLE = ["Alice", "Bob"]
TOPICS = ["pottery class", "marathon training", "new puppy", "job at the bakery", "trip to Oslo"]


def _conversations() -> list:
    """4 conversations x 25 turns = 100 turns."""
    from reliability import conversation

    convs = []
    for c in range(4):
        turns = [(PEOPLE[i % 2], f"In chat {c}, turn {i}: I talked about my {TOPICS[(c + i) % 5]} "
                                 f"and it went {'well' if i % 3 else 'badly'} on day {i}.")
                 for i in range(25)]
        convs.append(conversation(f"chat-{c}", turns, start=f"2024-0{c + 1}-01T09:00:00+00:00"))
    return convs


def _shape(tq, namespace: str) -> tuple:
    rels = {r["type"]: r["relationships"] for r in tq.read("count_relationships", namespace=namespace)}
    return counts(tq, namespace), rels


def _ingest(memory: str, facade, convs) -> None:
    if memory == "state":
        facade.state.ingest(convs)
    else:
        facade.associative.ingest(convs)


def _per_conversation(tq, namespace: str, label: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in tq.read("read_nodes", namespace=namespace, label=label):
        key = r["props"].get("conversation") or r["props"].get("conversation_id")
        out[key] = out.get(key, 0) + 1
    return out


@pytest.mark.parametrize("memory,label", [("state", "Event"), ("associative", "Episode")])
def test_conversation_ingest_failure_mid_ingest_then_rerun(runner, embedder, tq, namespace,
                                                           memory, label) -> None:
    from graphmem.facade import GraphMemory

    convs = _conversations()
    memo = MemoEmbedder(embedder)
    clean_ns = namespace + "-clean"
    try:
        _ingest(memory, GraphMemory(runner, memo, clean_ns), convs)
        clean = _shape(tq, clean_ns)
    finally:
        runner.write("core/delete_namespace", namespace=clean_ns)

    # 1) the embedder fails on turn 50 of 100 (the last turn of chat-1): chat-0 is whole,
    #    nothing of chat-1..3 (both memories encode a turn as its window text)
    fiftieth = window_texts(convs[1].turns)[-1]
    failing = FailingEmbedder(embedder, fail_on=fiftieth)
    failing.memo = memo.memo
    with pytest.raises(RuntimeError, match="injected embedder failure"):
        _ingest(memory, GraphMemory(runner, failing, namespace), convs)
    assert _per_conversation(tq, namespace, label) == {"chat-0": 25}

    # 2) a crash inside chat-1's transaction, after 2 of its statements ran: still only chat-0
    crashing = GraphMemory(FailingRunner(runner, fail_on=3), memo, namespace)
    with pytest.raises(RuntimeError, match="injected crash"):
        _ingest(memory, crashing, convs[1:])
    assert _per_conversation(tq, namespace, label) == {"chat-0": 25}

    # 3) running again completes it to exactly one clean run; again adds nothing
    facade = GraphMemory(runner, memo, namespace)
    _ingest(memory, facade, convs)
    assert _shape(tq, namespace) == clean
    _ingest(memory, facade, convs)
    assert _shape(tq, namespace) == clean

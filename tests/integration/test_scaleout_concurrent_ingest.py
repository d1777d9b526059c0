"""Four writers into ONE namespace lose no update: the graph they build (node counts per label,
relationship counts per type, no repeated relationship, sound chains: one CURRENT_STATE per
topic, every event on its chain, one episode timeline per conversation) equals exactly the graph
one writer builds from the same input. Real Neo4j, the bundled LoCoMo sample, the heuristic
path, writers as threads on one shared driver (graphmem.evaluation.concurrency)."""

from __future__ import annotations

import pytest

from graphmem.conversations import read_locomo
from graphmem.datasets import resolve
from graphmem.evaluation import concurrency_plan as plan
from graphmem.evaluation.concurrency import run_layout
from graphmem.facade import GraphMemory

WRITERS = 4


@pytest.fixture(scope="module")
def units(sample_data):
    """The first 8 sessions of conv-26 (first 8 turns each) as 8 conversations of one
    namespace, and conv-26's first 64 turns as ``mem.add`` batches of 8 turns."""
    conv = read_locomo(resolve("locomo", sample_data))[0]
    sessions = plan.session_units([conv])[:8]
    sessions = [u.model_copy(update={"turns": u.turns[:8]}) for u in sessions]
    turns = {t.source_id for u in sessions for t in u.turns}
    head = conv.model_copy(update={"turns": [t for t in conv.turns if t.source_id in turns]})
    return sessions, plan.message_batches([head], 8)


@pytest.mark.parametrize("memory", ["state", "associative"])
def test_four_writers_into_one_namespace_build_the_single_writer_graph(
        runner, embedder, namespace, units, memory) -> None:
    sessions, batches = units
    mem = GraphMemory(runner, embedder, namespace=namespace)
    single = run_layout(mem, memory, "same_namespace", 1, sessions, batches, 1, f"{namespace}-1")
    four = run_layout(mem, memory, "same_namespace", WRITERS, sessions, batches, 1,
                      f"{namespace}-4")
    assert single["errors"] == [] and four["errors"] == []
    assert four["graph"]["nodes"] == single["graph"]["nodes"]
    assert four["graph"]["relationships"] == single["graph"]["relationships"]
    check = plan.compare(memory, "same_namespace", single["graph"], four["graph"])
    assert check["violations"] == dict.fromkeys(plan.VIOLATIONS[memory], 0)
    assert check["lost_updates"] == 0
    if memory == "state":
        assert single["graph"]["nodes"]["Event"] == 64
        assert single["graph"]["relationships"]["FIRST_TIMELINE_NODE"] == \
            single["graph"]["nodes"]["Topic"]
    else:
        assert single["graph"]["nodes"]["Episode"] == 64
        assert single["graph"]["relationships"]["NEXT_EPISODE"] == 64 - len(sessions)
        assert four["graph"]["checks"]["conversations"] == len(sessions)


def test_four_writers_adding_batches_of_one_conversation_lose_no_state_event(
        runner, embedder, namespace, units) -> None:
    """State memory, one conversation's message batches through ``mem.add`` at once: every
    event lands on its topic chain with its evidence, one CURRENT_STATE per topic; the topics
    themselves may follow the arrival order (plan.ORDER_DEPENDENT). Batches of 3 turns cut every
    8-turn session, so consecutive batches of one session race: the conversation's lock makes
    each see the turn the one before it stored (NEXT_TURN across the cut)."""
    sessions, _ = units
    head = sessions[0].model_copy(update={"id": sessions[0].id.rsplit("-", 1)[0], "turns": [
        t for u in sessions for t in u.turns]})
    batches = plan.message_batches([head], 3)
    assert len(batches) == 24
    mem = GraphMemory(runner, embedder, namespace=namespace)
    single = run_layout(mem, "state", "same_conversation", 1, sessions, batches, 1,
                        f"{namespace}-1")
    four = run_layout(mem, "state", "same_conversation", WRITERS, sessions, batches, 1,
                      f"{namespace}-4")
    assert single["errors"] == [] and four["errors"] == []
    check = plan.compare("state", "same_conversation", single["graph"], four["graph"])
    assert check["violations"] == dict.fromkeys(plan.VIOLATIONS["state"], 0)
    assert check["differences"] == {} and check["lost_updates"] == 0
    assert four["graph"]["nodes"]["Event"] == 64
    assert four["graph"]["relationships"]["EVIDENCED_BY"] == \
        single["graph"]["relationships"]["EVIDENCED_BY"]
    assert single["graph"]["relationships"]["NEXT_TURN"] == \
        four["graph"]["relationships"]["NEXT_TURN"] == 64 - len(sessions)


def test_the_section_is_json_ready_and_cleans_up(runner, embedder, namespace, sample_data) -> None:
    import json

    from graphmem.evaluation.concurrency import concurrency_markdown, concurrency_section
    from graphmem.evaluation.locomo import truncate_conversation

    conv = truncate_conversation(read_locomo(resolve("locomo", sample_data))[1], 24)
    mem = GraphMemory(runner, embedder, namespace=namespace)
    section = concurrency_section(mem, [conv], writers=(2,), memories=("associative",),
                                  layouts=("same_namespace",), prefix=namespace)
    json.dumps(section)
    rows = section["memories"]["associative"]["same_namespace"]
    assert section["writers"] == [1, 2] and list(rows) == ["1", "2"]
    assert rows["1"]["speedup"] == 1.0 and rows["2"]["speedup"] > 0
    assert rows["2"]["nodes"]["Episode"] == section["input"]["turns"] == 24
    assert section["lost_updates"] == 0 and section["errors"] == 0
    assert "| associative | same_namespace | 2 |" in concurrency_markdown(section)
    leftovers = [r["namespace"] for r in runner.read("core/list_namespaces")
                 if r["namespace"].startswith(namespace)]
    assert leftovers == []


def test_four_writers_adding_batches_of_one_conversation_keep_one_episode_timeline(
        runner, embedder, namespace, units) -> None:
    """Associative memory, one conversation's message batches through ``mem.add`` at once, in
    any order: each batch takes the conversation's Timeline lock and is linked between the stored
    episodes around it, so the NEXT_EPISODE / NEXT_TURN chains, the episodes and their cues equal
    the single writer's."""
    sessions, batches = units
    mem = GraphMemory(runner, embedder, namespace=namespace)
    single = run_layout(mem, "associative", "same_conversation", 1, sessions, batches, 1,
                        f"{namespace}-1")
    four = run_layout(mem, "associative", "same_conversation", WRITERS, sessions, batches, 1,
                      f"{namespace}-4")
    assert single["errors"] == [] and four["errors"] == []
    check = plan.compare("associative", "same_conversation", single["graph"], four["graph"])
    assert check["violations"] == dict.fromkeys(plan.VIOLATIONS["associative"], 0)
    for rel in ("NEXT_EPISODE", "NEXT_TURN", "LEADS_TO", "HAS_TAG"):
        assert four["graph"]["relationships"][rel] == single["graph"]["relationships"][rel], rel
    assert four["graph"]["nodes"]["Episode"] == 64 and four["graph"]["nodes"]["Timeline"] == 1

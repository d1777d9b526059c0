"""Hostile text (tests/hostile_corpus.py, >= 50 strings) through every ingest and recall entry
point on the real Neo4j: each string is stored exactly (read back equal) or refused with a typed
graphmem error; never an untyped or query error; data already there (in the same namespace and
in another tenant) untouched. The 1 MiB text and a lone surrogate are refused by validation."""

from __future__ import annotations

import pydantic
import pytest
from hostile_corpus import HOSTILE, HUGE_TEXT, LONE_SURROGATE
from reliability import (  # noqa: F401
    MemoEmbedder,
    other_namespace,
    snapshot,
    tq,
    trajectory,
)

from graphmem.errors import GraphmemError, InvalidInputError
from graphmem.experience import ExperienceMemory
from graphmem.insight import InsightMemory
from graphmem.names import node_id


@pytest.fixture(scope="module")
def memo(embedder) -> MemoEmbedder:
    """The real model, each corpus string encoded once (one batch: the tokenizer sees all)."""
    memo = MemoEmbedder(embedder)
    vectors = memo.embed_documents(HOSTILE)
    assert vectors.shape == (len(HOSTILE), 384)
    memo.embed_documents(list({f"Mallory: {h}" for h in HOSTILE} | {f"Mallory: {h.strip()}" for h in HOSTILE}))
    return memo


def _seed_insight(runner, memo, ns):
    mem = InsightMemory(runner, memo, ns, related_top=0)
    q = mem.add_query("How tall is the Eiffel tower?", "resolved", ["search[Eiffel]"])
    i = mem.add_insight("Look up the official height on the tower's site.", [q])
    return mem, q, i


def test_insight_entry_points_store_hostile_text_exactly(runner, memo, tq, namespace,
                                                         other_namespace) -> None:
    mem, seed_q, seed_i = _seed_insight(runner, memo, namespace)
    _seed_insight(runner, memo, other_namespace)
    other_before = snapshot(tq, other_namespace)
    seeded = snapshot(tq, namespace)

    ids = {}
    for n, text in enumerate(HOSTILE):
        q = mem.add_query(text, "failed", [text, f"step {n}"], task_id=f"hostile-{n}")
        i = mem.add_insight(text, [q])
        ids[text] = (q, i)
        assert mem.get_insights([i])[0].content == text
        mem.recall(text, query_k=3, k=3)                                   # a recall never fails
    queries = {r["id"]: r["props"] for r in tq.read("read_nodes", namespace=namespace, label="Query")}
    steps = {r["props"]["content"] for r in tq.read("read_nodes", namespace=namespace, label="Step")}
    for text, (q, i) in ids.items():
        assert queries[q]["text"] == text
        assert text in steps
    # controller path (heuristic ADD renders the trajectory) with hostile query and steps
    result = mem.feedback(HOSTILE[0], "resolved", HOSTILE[:5], [ids[HOSTILE[1]][1]])
    assert result.added_insight_id is not None
    content = mem.get_insights([result.added_insight_id])[0].content
    assert HOSTILE[0] in content or any(h in content for h in HOSTILE[:5])

    # refused with a typed error before anything is written
    before = snapshot(tq, namespace)
    for bad in (HUGE_TEXT, LONE_SURROGATE):
        with pytest.raises(InvalidInputError):
            mem.add_query(bad, "resolved", ["x"])
        with pytest.raises(InvalidInputError):
            mem.recall(bad)
        with pytest.raises(InvalidInputError):
            mem.add_insight(bad, [seed_q])
    with pytest.raises(InvalidInputError, match="not valid Unicode"):
        mem.add_query("fine query", "resolved", [LONE_SURROGATE])   # not embedded: runner refuses
    assert snapshot(tq, namespace) == before

    # the data that was there is untouched, in this tenant and the other one
    after = snapshot(tq, namespace)
    for label, nodes in seeded.items():
        if label == "_counts":
            continue
        for node_key, props in nodes.items():
            if node_key == seed_i:   # the seed insight gained evidence only if retrieved: not here
                assert after[label][node_key]["content"] == props["content"]
            else:
                assert after[label][node_key] == props, (label, node_key)
    assert snapshot(tq, other_namespace) == other_before


def test_experience_entry_points_store_hostile_text_exactly(runner, memo, tq, namespace,
                                                            other_namespace) -> None:
    mem = ExperienceMemory(runner=runner, embedder=memo, namespace=namespace)
    other = ExperienceMemory(runner=runner, embedder=memo, namespace=other_namespace)
    other.ingest([trajectory("keep", "heat the soup", ["go to stove 1", "heat soup 1"])], k=0)
    other_before = snapshot(tq, other_namespace)

    stored, refused = 0, []
    for n, text in enumerate(HOSTILE):
        try:
            expert = trajectory(text, text, [text, "go to stove 1"])
            expert = expert.model_copy(update={"initial_observation": text})
            mem.ingest([expert], k=0)
        except GraphmemError as exc:          # typed refusal is allowed, nothing written
            refused.append((n, type(exc).__name__))
            continue
        except pydantic.ValidationError as exc:  # the Trajectory model refuses its task id
            assert "MAX_KEY_BYTES" in str(exc), exc   # (a key longer than the indexed limit)
            refused.append((n, "InvalidInputError"))
            continue
        stored += 1
        task = tq.read("read_nodes", namespace=namespace, label="Task")
        by_id = {r["id"]: r["props"] for r in task}
        props = by_id[node_id(namespace, "task", text)]
        assert props["query"] == text and props["task_key"] == text
        actions = {r["id"]: r["props"] for r in tq.read("read_nodes", namespace=namespace,
                                                         label="Action")}
        assert actions[node_id(namespace, "action", text, "expert", 1)]["raw"] == text
        recall = mem.recall(text, k=5, t=1)          # own text at cosine 1 (ties possible)
        assert recall.items[0].score > 0.999
        assert text in [i.query for i in recall.items]
    assert stored >= len(HOSTILE) - 5, refused
    # an exploration with hostile observations: FGW matching, edit path and insight rendering
    expert = trajectory("explore", HOSTILE[0], ["go to stove 1", "heat soup 1"])
    exploration = trajectory("explore", HOSTILE[0], ["go to stove 1", HOSTILE[3], "heat soup 1"],
                             reward=0.0, kind="exploration")
    exploration = exploration.model_copy(update={"steps": [
        s.model_copy(update={"observation": HOSTILE[10 + k]}) for k, s in enumerate(exploration.steps)]})
    mem.ingest([expert], explorations=[exploration], k=0)
    # the hostile task of the loop has the same query (a cosine tie): pick the explored task
    [explored] = [i for i in mem.recall(HOSTILE[0], k=5, t=0).items if i.task_key == "explore"]
    assert explored.correction_rules

    with pytest.raises(InvalidInputError):
        mem.ingest([trajectory("huge", HUGE_TEXT, ["go to stove 1"])], k=0)
    with pytest.raises(InvalidInputError):
        mem.recall(LONE_SURROGATE)
    assert snapshot(tq, other_namespace) == other_before


def test_state_and_associative_entry_points_store_hostile_text_exactly(
        runner, memo, tq, namespace, other_namespace) -> None:
    from reliability import conversation

    from graphmem.facade import GraphMemory

    safe = conversation("safe", [("Alice", "I live in Porto."), ("Bob", "Since when?")])
    hostile = conversation(HOSTILE[0], [("Mallory", h) for h in HOSTILE])
    other = GraphMemory(runner, memo, other_namespace)
    other.state.ingest([safe])
    other.associative.ingest([safe])
    other_before = snapshot(tq, other_namespace)

    mem = GraphMemory(runner, memo, namespace)
    mem.state.ingest([safe])
    mem.associative.ingest([safe])
    seeded = snapshot(tq, namespace)
    mem.state.ingest([hostile])
    mem.associative.ingest([hostile])

    events = [p["text"] for p in snapshot(tq, namespace)["Event"].values()]
    assert sorted(events) == sorted(HOSTILE + [t.text for t in safe.turns])
    # an Episode stores "<speaker>: <text>" with the text's surrounding whitespace stripped
    episodes = {p["text"] for p in snapshot(tq, namespace)["Episode"].values()}
    assert {f"Mallory: {h.strip()}" for h in HOSTILE} <= episodes
    for question in HOSTILE[::6]:          # every sixth: recall is the slow part here
        state = mem.state.recall(question, k=5, max_rounds=2)
        assert state.items and all(h.id for h in state.items)
        mem.associative.recall(question, max_rounds=1)

    before = snapshot(tq, namespace)
    conv = conversation("bad", [("Mallory", "fine"), ("Mallory", HUGE_TEXT)])
    with pytest.raises(InvalidInputError, match="MAX_TEXT_CHARS"):
        mem.state.ingest([conv])
    with pytest.raises(InvalidInputError, match="MAX_TEXT_CHARS"):
        mem.associative.ingest([conv])
    with pytest.raises(ValueError, match="unicode"):       # the Turn input model refuses it
        conversation("bad", [("Mallory", LONE_SURROGATE)])
    for bad in (HUGE_TEXT, LONE_SURROGATE):
        with pytest.raises(InvalidInputError):
            mem.state.recall(bad)
        with pytest.raises(InvalidInputError):
            mem.associative.recall(bad)
    assert snapshot(tq, namespace) == before

    after = snapshot(tq, namespace)
    for label, nodes in seeded.items():
        if label != "_counts":
            for key, props in nodes.items():
                # a cue's `contents` counts the episodes linked to it: the hostile turns add theirs
                grown = {"contents"} if label == "Cue" else set()
                assert {p: v for p, v in after[label][key].items() if p not in grown} == \
                    {p: v for p, v in props.items() if p not in grown}, (label, key)
                if grown:
                    assert after[label][key]["contents"] >= props["contents"], key
    assert snapshot(tq, other_namespace) == other_before

"""``mem.add`` against real Neo4j is all-or-nothing across memories: bad input writes nothing
in any memory, the content limit is exact, and a database failure in the second memory raises
``PartialWriteError`` whose messages complete the write when re-sent."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import exceptions as neo4j_exceptions

from graphmem.errors import DatabaseError, EmptyTextError, InvalidInputError, PartialWriteError
from graphmem.facade import GraphMemory
from graphmem.validation import MAX_TEXT_CHARS

MEMORIES = ("state", "associative")


def _counts(mem: GraphMemory) -> dict[str, dict[str, int]]:
    return {name: mem.memory(name).counts() for name in MEMORIES}


def _events(mem: GraphMemory, conversation: str) -> list[tuple[str, str]]:
    return [(row.id, row.content) for row in mem.messages(conversation)]


class FailingAssociativeRunner:
    """The real runner, except that the associative memory's first write query (run inside a
    write transaction) raises a driver error; the transaction then aborts on the real server."""

    def __init__(self, runner: Any):
        self._runner = runner
        self.failed = 0

    def run_in(self, tx: Any, name: str, /, **params: Any) -> list[dict]:
        if name.startswith("associative/") and not self.failed:
            self.failed += 1
            raise neo4j_exceptions.DatabaseError("the server failed while writing (injected)")
        return self._runner.run_in(tx, name, **params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runner, name)


@pytest.mark.parametrize(("bad", "error", "match"), [
    ({"id": "中" * 2800}, InvalidInputError, r"^message 1: id is 8400 UTF-8 bytes"),
    ({"id": "  "}, InvalidInputError, r"^message 1: id must be a non-empty string"),
    ({"role": "r" * 1025}, InvalidInputError, r"^message 1: role is 1025 UTF-8 bytes"),
    ({"content": "x" * (MAX_TEXT_CHARS + 1)}, InvalidInputError,
     rf"^message 1: content has {MAX_TEXT_CHARS + 1} characters"),
    ({"content": " \t"}, EmptyTextError, r"^message 1: content is empty"),
])
def test_bad_message_writes_nothing_in_any_memory(runner, embedder, namespace, bad, error, match):
    mem = GraphMemory(runner, embedder, namespace)
    mem.add([{"role": "Ann", "content": "I live in Lyon.", "id": "m0"}], conversation_id="c1")
    before = _counts(mem)
    messages = [{"role": "Ann", "content": "I moved to Porto.", "id": "m1"},
                {"role": "Ann", "content": "My cat is Pixel.", "id": "m2", **bad}]
    with pytest.raises(error, match=match):
        mem.add(messages, conversation_id="c1")
    assert _counts(mem) == before
    assert _events(mem, "c1") == [("m0", "I live in Lyon.")]


def test_content_of_exactly_the_limit_is_stored(runner, embedder, namespace):
    mem = GraphMemory(runner, embedder, namespace)
    text = "word " * (MAX_TEXT_CHARS // 5 - 1) + "last."
    assert len(text) == MAX_TEXT_CHARS
    reports = mem.add([{"role": "Ann", "content": text, "id": "big"},
                       {"role": "Bob", "content": "b" * MAX_TEXT_CHARS, "id": "big2"}],
                      conversation_id="c1")
    assert reports["state"].created["Event"] == 2
    assert reports["associative"].created["Episode"] == 2
    assert _events(mem, "c1") == [("big", text), ("big2", "b" * MAX_TEXT_CHARS)]
    before = _counts(mem)
    with pytest.raises(InvalidInputError, match=f"more than the limit MAX_TEXT_CHARS={MAX_TEXT_CHARS}"):
        mem.add([{"role": "Ann", "content": text + "!", "id": "bigger"}], conversation_id="c1")
    assert _counts(mem) == before


def test_partial_write_names_the_memories_and_resending_completes_it(runner, embedder, namespace):
    messages = [{"role": "Ann", "content": "My sister Lena lives in Porto."},
                {"role": "Bob", "content": "Does she still teach piano there?"},
                {"role": "Ann", "content": "Yes, and she adopted a cat named Pixel.",
                 "id": "given-id", "timestamp": "2024-05-03T09:00:00Z"}]
    proxy = FailingAssociativeRunner(runner)
    faulty = GraphMemory(proxy, embedder, namespace)
    with pytest.raises(PartialWriteError) as info:
        faulty.add(messages, conversation_id="c1", session_id="s1")
    err = info.value
    assert proxy.failed == 1
    assert (err.stored, err.missing, err.failed) == (["state"], ["associative"], "associative")
    assert isinstance(err, DatabaseError) and isinstance(err.__cause__, DatabaseError)
    assert isinstance(err.__cause__.__cause__, neo4j_exceptions.DatabaseError)
    assert "stored in state but not in associative" in str(err)
    assert (err.conversation_id, err.session_id) == ("c1", "s1")
    ids = [m.id for m in err.messages]
    assert ids[2] == "given-id" and all(i.startswith("msg-") for i in ids[:2])
    assert [m.content for m in err.messages] == [m["content"] for m in messages]
    assert all(m.timestamp is not None for m in err.messages)

    mem = GraphMemory(runner, embedder, namespace)
    assert sorted(i for i, _ in _events(mem, "c1")) == sorted(ids)  # in time order
    partial = _counts(mem)
    assert partial["state"]["Event"] == 3 and partial["associative"]["Episode"] == 0

    reports = mem.add(err.messages, conversation_id=err.conversation_id, session_id=err.session_id)
    assert reports["state"].skipped == {"turn": 3} and not reports["state"].created.get("Event")
    assert reports["associative"].created["Episode"] == 3
    again = mem.add(err.messages, conversation_id="c1", session_id="s1")
    assert again["state"].skipped == {"turn": 3} and again["associative"].skipped == {"turn": 3}

    clean_ns = f"test-{uuid.uuid4().hex[:12]}"
    try:
        clean = GraphMemory(runner, embedder, clean_ns)
        clean.add(err.messages, conversation_id="c1", session_id="s1")
        assert _counts(mem) == _counts(clean)
        assert _events(mem, "c1") == _events(clean, "c1")
    finally:
        runner.write("core/delete_namespace", namespace=clean_ns)


def test_first_memory_failing_raises_its_own_error_and_stores_nothing(runner, embedder,
                                                                       namespace):
    proxy = FailingAssociativeRunner(runner)
    faulty = GraphMemory(proxy, embedder, namespace)
    with pytest.raises(DatabaseError) as info:
        faulty.add([{"role": "Ann", "content": "I live in Lyon.", "id": "m1"}],
                   conversation_id="c1", memories=["associative", "state"])
    assert not isinstance(info.value, PartialWriteError)
    mem = GraphMemory(runner, embedder, namespace)
    assert _counts(mem)["state"]["Event"] == 0 and _counts(mem)["associative"]["Episode"] == 0


# Mostly valid values, so that examples both succeed and fail.
_FIELDS = st.fixed_dictionaries({
    "role": st.sampled_from(["Ann", "Bob", "Ann", "Bob", "", "r" * 1025]),
    "content": st.sampled_from(["I moved to Lyon.", "The cat is called Pixel.", "I like tea.",
                                "Lena teaches piano.", "  ", "x" * (MAX_TEXT_CHARS + 1)]),
    "id": st.sampled_from([None, "a", "b", "c", None, " ", "中" * 400]),
})


def test_add_stores_everything_or_nothing(runner, embedder, namespace):
    """Property: through ``mem.add`` a call either stores every message in both memories or
    changes nothing (node and relationship counts unchanged); the examples cover both."""
    mem = GraphMemory(runner, embedder, namespace)
    outcomes: list[str] = []

    @settings(max_examples=10, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(_FIELDS, min_size=1, max_size=3))
    def prop(messages):
        conversation = f"c-{len(outcomes)}"
        before = _counts(mem)
        try:
            reports = mem.add(messages, conversation_id=conversation)
        except InvalidInputError:
            outcomes.append("refused")
            assert _counts(mem) == before
            assert _events(mem, conversation) == []
            return
        outcomes.append("stored")
        assert reports["state"].created.get("Event", 0) == len(messages)
        assert reports["associative"].created.get("Episode", 0) == len(messages)
        assert [c for _, c in _events(mem, conversation)] == [m["content"] for m in messages]

    prop()
    assert {"stored", "refused"} <= set(outcomes), outcomes


class FailingExperienceRunner:
    """The real runner, except that experience memory's batched write raises a driver error
    (nothing of it reaches the server)."""

    def __init__(self, runner: Any):
        self._runner = runner

    def write_many(self, steps: Any) -> list[list[dict]]:
        steps = list(steps)
        if any(name.startswith("experience/") for name, _ in steps):
            raise DatabaseError("the server failed while writing (injected)")
        return self._runner.write_many(steps)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runner, name)


def test_feedback_whose_experience_write_fails_says_what_is_stored(runner, embedder, namespace):
    faulty = GraphMemory(FailingExperienceRunner(runner), embedder, namespace)
    with pytest.raises(PartialWriteError) as info:
        faulty.feedback("water the basil on the balcony", "resolved",
                        trajectory=["go to balcony", "pick up watering can", "water basil"])
    err = info.value
    assert (err.stored, err.missing, err.failed) == (["insight"], ["experience"], "experience")
    assert "stored in insight" in str(err) and "mem.experience.ingest" in str(err)
    assert [s.action for s in err.trajectory.steps] == ["go to balcony", "pick up watering can",
                                                        "water basil"]
    mem = GraphMemory(runner, embedder, namespace)
    assert mem.insight.counts()["Query"] == 1 and mem.experience.counts()["Task"] == 0
    report = mem.experience.ingest([err.trajectory])
    assert report.created["Task"] == 1
    assert mem.experience.counts()["Task"] == 1

"""State memory (EMIR² SEMG) against real Neo4j: chains, late events, evidence-based updates,
idempotent re-ingest, concurrency, tenancy, multi-round recall on a LoCoMo slice."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import pytest

from graphmem.conversations import Conversation, Turn, read_locomo
from graphmem.errors import EmptyTextError, InvalidInputError
from graphmem.state import StateMemory


def _turn(source_id: str, text: str, month: int, value: str, attribute: str = "Residence",
          kind: str = "attribute", day: int = 1) -> Turn:
    return Turn(source_id=source_id, speaker="Ann", text=text,
                timestamp=datetime(2024, month, day, tzinfo=timezone.utc), position=month,
                meta={"attribute": attribute, "value": value, "kind": kind})


def _conv(*turns: Turn) -> Conversation:
    return Conversation(id="c1", speakers=["Ann"], turns=list(turns))


def _topic_id(runner, namespace: str) -> str:
    [topic] = runner.read("state/list_topics", namespace=namespace, conversation="c1")
    return topic["id"]


def test_late_event_keeps_current_state_and_time_order(runner, embedder, namespace):
    mem = StateMemory(runner, embedder, namespace)
    assert mem.ingest([_conv(_turn("t1", "I live in Lyon.", 3, "Lyon"))]).details["state_relations"] == {"initial": 1}
    assert mem.ingest([_conv(_turn("t2", "I moved to Paris.", 6, "Paris"))]).details["state_relations"] == {"change": 1}
    assert mem.ingest([_conv(_turn("t0", "I lived in Nice.", 1, "Nice"))]).details["state_relations"] == {"history": 1}
    topic = _topic_id(runner, namespace)
    chain = mem.topic_chain(topic)
    assert [c["source_ids"] for c in chain] == [["t0"], ["t1"], ["t2"]]
    states = {h.value: h for h in mem.store.topic_states([topic], only_current=False)}
    assert [v for v, h in states.items() if h.current] == ["paris"]
    assert states["nice"].valid_to == states["lyon"].valid_from
    assert states["lyon"].valid_to == states["paris"].valid_from and states["paris"].valid_to is None
    assert mem.counts() == {"Topic": 1, "Event": 3, "State": 3, "ConversationLock": 1, "Person": 1}
    assert mem.check() == {"bad_current": 0, "unchained": 0}
    history = runner.read("state/get_topic_states", namespace=namespace, topic_ids=[topic],
                          only_current=False)
    assert [h["value"] for h in history] == ["nice", "lyon", "paris"]


def test_confirm_conflict_and_condition(runner, embedder, namespace):
    mem = StateMemory(runner, embedder, namespace)
    report = mem.ingest([_conv(
        _turn("a", "My birthplace is Boston.", 1, "Boston", "Birthplace", "static"),
        _turn("b", "Yes, born in Boston.", 2, "Boston", "Birthplace", "static"),
        _turn("c", "My birthplace is Dublin.", 5, "Dublin", "Birthplace", "static"),
    )])
    assert report.details["state_relations"] == {"initial": 1, "confirm": 1, "conflict": 1}
    topic = _topic_id(runner, namespace)
    states = {h.value: h for h in mem.store.topic_states([topic], only_current=False)}
    assert states["boston"].current and states["boston"].conflict
    assert not states["dublin"].current and states["dublin"].conflict
    assert sorted(states["boston"].source_ids) == ["a", "b"]
    res = mem.recall("What is Ann's birthplace now?")
    assert res.items[0].kind == "state" and res.items[0].value == "boston"
    assert [r.action for r in res.rounds][:2] == ["search_events", "current_state"]


def test_reingest_adds_no_node(runner, embedder, namespace, sample_data):
    [conv] = read_locomo(sample_data / "locomo" / "locomo-dev.json")[:1]
    small = conv.model_copy(update={"turns": conv.turns[:40]})
    mem = StateMemory(runner, embedder, namespace)
    first = mem.ingest([small])
    before = runner.read("core/count_namespace_nodes", namespace=namespace)
    again = mem.ingest([small])
    assert first.inputs == 40 and first.created["Event"] == 40
    assert first.created == {k: v for k, v in mem.counts().items() if v}
    assert again.created == {} and again.skipped == {"turn": 40}
    assert runner.read("core/count_namespace_nodes", namespace=namespace) == before
    assert mem.check() == {"bad_current": 0, "unchained": 0}


def test_recall_on_locomo_slice_returns_dia_ids(runner, embedder, namespace, sample_data):
    [conv] = read_locomo(sample_data / "locomo" / "locomo-dev.json")[:1]
    small = conv.model_copy(update={"turns": conv.turns[:60]})
    mem = StateMemory(runner, embedder, namespace)
    mem.ingest([small])
    res = mem.recall("When did Caroline go to the LGBTQ support group?", k=10)
    assert res.rounds[0].details["intent"] == "temporal" and res.controller == "heuristic"
    assert "D1:3" in res.source_ids(5)
    assert len(res.items) <= 10 and all(item.source_ids for item in res.items)
    assert all(item.path[0].node == "question" and item.path[-1].id == item.id for item in res.items)
    assert set(res.timings) >= {"embed", "search", "total"}
    assert [r.action for r in res.rounds] == ["search_events", "timeline"]  # budget of 2 rounds
    other = StateMemory(runner, embedder, namespace + "-other")
    assert other.recall("When did Caroline go to the LGBTQ support group?").items == []


def test_concurrent_updates_leave_one_current_state(runner, embedder, namespace):
    mem = StateMemory(runner, embedder, namespace)
    mem.ingest([_conv(_turn("t0", "I live in Lyon.", 1, "Lyon"))])
    cities = ["Paris", "Nice", "Lille", "Brest", "Metz", "Dijon"]
    errors: list[Exception] = []

    def worker(i: int, city: str) -> None:
        try:
            StateMemory(runner, embedder, namespace).ingest(
                [_conv(_turn(f"w{i}", f"I moved to {city}.", 2 + i, city))])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(cities)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert mem.check() == {"bad_current": 0, "unchained": 0} and mem.counts()["Event"] == 7
    topic = _topic_id(runner, namespace)
    current = mem.store.topic_states([topic], only_current=True)
    assert [h.value for h in current] == ["dijon"]  # the latest by time wins whatever the order
    assert [c["source_ids"][0] for c in mem.topic_chain(topic)] == ["t0"] + [f"w{i}" for i in range(6)]


def test_bad_input_writes_nothing(runner, embedder, namespace):
    mem = StateMemory(runner, embedder, namespace)
    with pytest.raises(InvalidInputError):
        mem.recall("x", k=0)
    with pytest.raises(EmptyTextError):
        mem.recall("   ")
    assert runner.read("core/count_namespace_nodes", namespace=namespace) == []


def test_llm_extractor_and_controller_are_counted(runner, embedder, namespace):
    from fakes import ScriptedChatModel, tool_reply

    turns = [Turn(source_id="L1", speaker="Ann", text="I moved to Lyon last week.",
                  timestamp=datetime(2024, 3, 1, tzinfo=timezone.utc), position=0)]
    extraction = tool_reply("ExtractionBatch", {"items": [{
        "index": 0, "subject": "Ann", "topic": "Ann / home", "assertion": "Ann lives in Lyon",
        "value": "Lyon"}]}, input_tokens=40, output_tokens=12)
    choices = [tool_reply("ControllerChoice", {"action": a, "reason": "scripted"},
                          input_tokens=30, output_tokens=4)
               for a in ("current_state", "stop")]
    llm = ScriptedChatModel(responses=[extraction, *choices])
    mem = StateMemory(runner=runner, embedder=embedder, namespace=namespace, llm=llm)
    report = mem.ingest([Conversation(id="c-llm", speakers=["Ann"], turns=turns)])
    assert report.extractor == "llm"
    assert report.llm_usage.operations["state.extract"].calls == 1
    assert report.llm_usage.operations["state.extract"].input_tokens == 40
    result = mem.recall("Where does Ann live now?", k=3, max_rounds=2)
    assert result.controller == "llm"
    assert result.llm_usage.calls >= 1
    assert "L1" in result.source_ids()
    assert mem.llm_usage.calls == 1 + result.llm_usage.calls

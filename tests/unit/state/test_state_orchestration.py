"""State memory orchestration without a database: the named queries a plan issues and how their
rows become ranked items (fake runner, hash embedder)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from fake_runner import FakeRunner, HashEmbedder

from graphmem.conversations import Conversation, Turn
from graphmem.errors import InvalidInputError, UnknownQueryError
from graphmem.state import StateMemory


def _event(eid: str, score: float, sid: str, text: str = "hello") -> dict:
    return {"id": eid, "text": text, "speaker": "Ann", "source_ids": [sid], "occurred_at": None,
            "topic_id": "t1", "topic": "Ann: job", "score": score}


STATE = {"id": "s1", "content": "Ann works as a nurse", "value": "nurse", "condition": None,
         "subject": "Ann", "valid_from": None, "valid_to": None, "conflict": False,
         "current": True, "topic_id": "t1", "topic": "Ann: job", "source_ids": ["d1", "d1"],
         "score": 0.7}


def _script() -> dict:
    events = [_event("e1", 0.9, "d1"), _event("e2", 0.5, "d2")]
    return {
        "state/search_events": events, "state/scan_events": events,
        "state/fulltext_events": [_event("e2", 3.0, "d2")],
        "state/search_states": [STATE], "state/scan_states": [STATE],
        "state/get_timeline": [{**_event("e3", 0.0, "d3"), "parent": "e1", "distance": 1}],
    }


def test_factual_plan_issues_its_queries_and_ranks_rows() -> None:
    runner = FakeRunner(_script())
    mem = StateMemory(runner, HashEmbedder(), "ns-unit")
    result = mem.recall("What is Ann's job?", k=3)
    assert runner.names() == ["state/search_events", "state/scan_events", "state/fulltext_events",
                              "state/search_states", "state/scan_states", "state/get_timeline"]
    assert [r.action for r in result.rounds] == ["search_events", "search_states", "timeline", "stop"]
    assert result.rounds[0].details == {"intent": "factual"}
    assert result.rounds[0].added == ["e1", "e2"] and result.rounds[2].added == ["e3"]
    # e1 = 0.9 (dense), s1 = 0.7 + current bonus 0.2, e3 = 0.9 * timeline decay 0.9, e2 = 0.5 + 0.15
    assert [(i.id, round(i.score, 4)) for i in result.items] == [("e1", 0.9), ("s1", 0.9),
                                                                ("e3", 0.81)]
    assert result.memory == "state" and result.controller == "heuristic"
    assert result.items[1].kind == "state" and result.items[1].source_ids == ["d1"]
    assert result.source_ids() == ["d1", "d3"]
    assert [(s.action, s.id) for s in result.items[2].path] == [
        ("ask", "question"), ("search_events", "e1"), ("timeline", "e3")]
    assert set(result.timings) == {"embed", "search", "total"}
    timeline = dict(runner.calls)["state/get_timeline"]
    assert timeline == {"namespace": "ns-unit", "event_ids": ["e1", "e2"], "hops": 1}


def test_documents_keep_turn_fusion_key_for_events() -> None:
    mem = StateMemory(FakeRunner(_script()), HashEmbedder(), "ns-unit")
    docs = mem.documents(mem.recall("What is Ann's job?", k=3))
    assert [d.metadata["rank"] for d in docs] == [1, 2, 3]
    assert docs[0].metadata["fusion_key"].startswith("turn:d1:")
    # a state on the same turn gets a turn key too; a different text keeps it a different key
    assert docs[1].metadata["fusion_key"].startswith("turn:d1:")
    assert docs[1].metadata["fusion_key"] != docs[0].metadata["fusion_key"]
    assert docs[1].metadata["provenance"]["dia_ids"] == ["d1"]
    assert docs[0].metadata["node_ids"] == ["e1", "t1"]


def test_bad_counts_are_refused_before_any_query() -> None:
    runner = FakeRunner()
    mem = StateMemory(runner, HashEmbedder(), "ns-unit")
    for bad in (0, 201, True, 2.0):
        with pytest.raises(InvalidInputError):
            mem.recall("What is Ann's job?", k=bad)
    with pytest.raises(InvalidInputError):
        mem.recall("What is Ann's job?", max_rounds=9)
    assert runner.calls == []


def test_reingest_of_stored_turns_writes_nothing() -> None:
    turns = [Turn(source_id=f"d{i}", speaker="Ann", text=f"I work as a nurse {i}.",
                  timestamp=datetime(2024, 1, 1 + i, tzinfo=timezone.utc), position=i)
             for i in range(30)]
    runner = FakeRunner({"state/find_existing_events":
                         lambda params: [{"id": i} for i in params["ids"]]})
    done: list[int] = []
    report = StateMemory(runner, HashEmbedder(), "ns-unit").ingest(
        [Conversation(id="c1", speakers=["Ann"], turns=turns)], progress=done.append)
    assert runner.transactions == []
    assert report.created == {} and report.skipped == {"turn": 30} and report.inputs == 30
    assert done == [25, 5]


def test_fake_runner_rejects_unknown_names_and_wrong_params() -> None:
    runner = FakeRunner()
    with pytest.raises(UnknownQueryError):
        runner.read("state/no_such_query", namespace="x")
    with pytest.raises(Exception, match="takes params"):
        runner.read("state/search_events", namespace="x")


def _ingest_script() -> dict:
    def topics(params: dict) -> list[dict]:
        return [{"id": r["id"], "created": True, "first_id": None, "current": None,
                 "initial_id": None, "initial_valid_from": None} for r in params["rows"]]

    return {
        "state/lock_topics": topics,
        "state/find_session_neighbours": lambda p: [{"id": r["id"], "predecessor": None,
                                                     "successor": None} for r in p["rows"]],
        "state/merge_events": lambda p: [{"created": len(p["rows"])}],
        "state/write_states": lambda p: [{"created": len(p["states"])}],
        "state/merge_related_events": lambda p: [{"created": len(p["pairs"])}],
        "state/link_turns": lambda p: [{"linked": len(p["link"])}],
        "state/link_timeline": lambda p: [{"linked": len(p["link"])}],
    }


def test_one_batch_is_one_transaction_of_constant_statements_and_one_encoding_per_turn() -> None:
    texts = ["I adopted a cat.", "What is its name?", "I call her Misty.", "I love sailing.",
             "Great!", "My sister moved to Porto.", "I started pottery."]
    shapes = []
    for n in (5, 40):
        turns = [Turn(source_id=f"d{i}", speaker="Ann" if i % 2 else "Bob", text=texts[i % 7],
                      timestamp=datetime(2024, 1, 1 + i // 10, tzinfo=timezone.utc), position=i,
                      session=f"s{i // 10}") for i in range(n)]
        runner = FakeRunner(_ingest_script())
        encoded: list[int] = []
        embedder = HashEmbedder()
        inner = embedder.embed_documents
        embedder.embed_documents = lambda texts, inner=inner: (encoded.append(len(texts)), inner(texts))[1]
        report = StateMemory(runner, embedder, "ns-unit").ingest(
            [Conversation(id="c1", speakers=["Ann", "Bob"], turns=turns)])
        assert encoded == [n]                      # each turn encoded once, in one call
        assert report.created["Event"] == n and report.inputs == n
        assert len(runner.transactions) == 1
        shapes.append(runner.transactions[0])
    assert shapes[0] == shapes[1] == [
        "state/lock_topics", "state/find_existing_events", "state/find_session_neighbours",
        "state/merge_events", "state/link_turns", "state/link_timeline", "state/write_states",
        "state/merge_related_events"]

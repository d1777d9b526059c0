"""State memory orchestration without a database: the named queries a plan issues and how their
rows become ranked items (fake runner, hash embedder)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from fake_runner import FakeRunner, HashEmbedder, unit_columns

from graphmem.conversations import Conversation, Turn
from graphmem.errors import InvalidInputError, UnknownQueryError
from graphmem.state import StateMemory


def _unit(eid: str, dense: float, sid: str, terms: str, prev=None, nxt=None) -> dict:
    return {"id": eid, "text": terms, "speaker": "Ann", "source_ids": [sid],
            "lexical_terms": terms, "is_cue": False, "is_smalltalk": False, "prev_id": prev,
            "next_id": nxt, "via_lexical": True, "via_dense": True, "dense": dense,
            "occurred_at": None, "topic_id": "t1", "conversation": "c", "session": "s1"}


ROW = {"n_units": 3, "avg_length": 3.0, "dfs": [["ann", 3], ["job", 1], ["work", 1]],
       "dense_mode": "exact", "speakers": [["Ann", 3]],
       "units": [unit_columns(u) for u in [_unit("e1", 0.9, "d1", "ann job nurse", nxt="e2"),
                 _unit("e2", 0.5, "d2", "ann likes tea", prev="e1", nxt="e3"),
                 _unit("e3", 0.4, "d3", "ann work hospital", prev="e2")]]}
STATE = {"id": "s1", "content": "Ann works as a nurse", "value": "nurse", "condition": None,
         "subject": "Ann", "valid_from": None, "valid_to": None, "conflict": False,
         "current": True, "topic_id": "t1", "topic": "Ann: job", "evidence": ["e3"],
         "source_ids": ["d3", "d3"]}


def _script() -> dict:
    return {"retrieval/search_units@Event": [ROW], "state/expand_states": [STATE],
            "state/expand_chain": [{"source": "e1", "id": "e2", "relation": "TEMPORAL_NEXT",
                                    "similarity": 1.0}]}


def test_factual_plan_issues_one_query_per_round() -> None:
    runner = FakeRunner(_script())
    mem = StateMemory(runner, HashEmbedder(), "ns-unit", graph_weight=1.0)
    result = mem.recall("Where does Ann work?", k=3, max_rounds=3)
    assert runner.names() == ["retrieval/search_units@Event", "state/expand_states",
                              "state/expand_chain", "state/evidenced_states"]
    assert [r.action for r in result.rounds] == ["search_events", "search_states", "timeline"]
    assert result.rounds[0].details["intent"] == "factual"
    chain = dict(runner.calls)["state/expand_chain"]
    assert chain["relation"] == "TEMPORAL_NEXT" and chain["event_ids"][0] == "e1"
    # the state takes the place of its own evidence e3 (folded into it, no slot of its own), and
    # its topic "Ann: job" half-named by the question lifts it by TOPIC_WEIGHT / 2; e2 is one
    # TEMPORAL_NEXT step from e1, the best event: graph step γ · x_e1 (γ = 1 here)
    assert [i.id for i in result.items] == ["s1", "e1", "e2"]
    assert result.items[0].kind == "state" and result.items[0].also == ["e3"]
    assert result.items[0].source_ids == ["d3"]
    assert [s.action for s in result.items[2].path][-1] == "TEMPORAL_NEXT"
    assert result.memory == "state" and result.controller == "heuristic"
    assert set(result.timings) == {"embed", "search", "total"}


def test_current_state_heads_its_topic() -> None:
    result = StateMemory(FakeRunner(_script()), HashEmbedder(), "ns-unit").recall(
        "What is Ann's job?", k=3)
    assert [r.action for r in result.rounds] == ["search_events", "current_state"]
    top = result.items[0]
    assert top.kind == "state" and top.current and top.value == "nurse"
    # the topic's best event's score + CURRENT_BONUS + TOPIC_WEIGHT · (topic "Ann: job" fully named)
    assert top.score == pytest.approx(result.items[1].score + 0.05 + 0.5)


def test_documents_keep_turn_fusion_key_for_events() -> None:
    from graphmem.documents import turn_key

    mem = StateMemory(FakeRunner(_script()), HashEmbedder(), "ns-unit")
    docs = mem.documents(mem.recall("Where does Ann work?", k=3))
    assert [d.metadata["rank"] for d in docs] == [1, 2, 3]
    assert docs[1].metadata["fusion_key"] == turn_key("d1", "c")
    state = docs[0]
    assert state.metadata["kind"] == "state" and state.metadata["provenance"]["dia_ids"] == ["d3"]
    # a state resting on one turn fuses on that turn (conversation and source id), the key of
    # that turn's Event or associative Episode whatever its own statement text
    assert state.metadata["fusion_key"] == turn_key("d3", "c")
    assert state.metadata["validity"]["state_id"] == "s1" and state.metadata["validity"]["current"]
    assert "validity" not in docs[1].metadata  # the scripted e1 evidences no state
    assert "e3" in state.metadata["node_ids"]


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
        runner.read("state/expand_states", namespace="x")


def _ingest_script(batches_under_lock: int = 1) -> dict:
    """Answers of a fresh conversation; ``batches_under_lock``: the ConversationLock count the
    batch finds (1: it is the only batch since it was prepared, at count 0)."""
    def topics(params: dict) -> list[dict]:
        return [{"id": r["id"], "created": True, "first_id": None, "current": None,
                 "initial_id": None, "initial_valid_from": None, "batches": batches_under_lock}
                for r in params["rows"]]

    return {
        "state/lock_topics": topics,
        "state/find_session_neighbours": lambda p: [{"id": r["id"], "predecessor": None,
                                                     "successor": None} for r in p["rows"]],
        "state/merge_events": lambda p: [{"created": len(p["rows"])}],
        "state/write_states": lambda p: [{"created": len(p["states"])}],
        "state/merge_related_events": lambda p: [{"created": len(p["pairs"])}],
        "state/link_turns": lambda p: [{"linked": len(p["link"])}],
        "state/link_timeline": lambda p: [{"linked": len(p["link"])}],
        "state/lock_people": [{"locked": 1}],
        "state/people_due": [{"events": 1, "people_events": None}],
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
        # related_threshold 0: every cross-topic pair of positive cosine qualifies, so both
        # batches have RELATED_EVENT pairs whatever the hash vectors are
        report = StateMemory(runner, embedder, "ns-unit", related_threshold=0.0).ingest(
            [Conversation(id="c1", speakers=["Ann", "Bob"], turns=turns)])
        assert encoded == [n]                      # each turn encoded once, in one call
        assert report.created["Event"] == n and report.inputs == n
        assert len(runner.transactions) == 2  # the batch, then the conversation's people
        shapes.append(runner.transactions[0])
        assert runner.transactions[1] == ["state/lock_people", "state/conversation_texts",
                                          "state/delete_people", "state/merge_people",
                                          "state/people_resolved"]
    assert shapes[0] == shapes[1] == [
        "state/lock_topics", "state/find_existing_events",
        "state/merge_events", "state/link_turns", "state/link_timeline", "state/write_states",
        "state/merge_related_events"]


def test_a_batch_that_finds_another_one_landed_checks_its_session_neighbours() -> None:
    turns = [Turn(source_id=f"d{i}", speaker="Ann", text=f"I started pottery class {i}.",
                  timestamp=datetime(2024, 1, 1, tzinfo=timezone.utc), position=i, session="s1")
             for i in range(3)]
    runner = FakeRunner(_ingest_script(batches_under_lock=2))
    StateMemory(runner, HashEmbedder(), "ns-unit").ingest(
        [Conversation(id="c1", speakers=["Ann"], turns=turns)])
    assert runner.names()[1:3] == ["state/conversation_batches", "state/list_topics"]
    assert runner.transactions[0][:3] == ["state/lock_topics", "state/find_existing_events",
                                          "state/find_session_neighbours"]

"""The pure parts of batch ingest: chain insertion, state evolution, RELATED_EVENT pairs, session
order of a batch among stored neighbours."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from graphmem.conversations import Turn
from graphmem.retrieval import unit_rows
from graphmem.state.batch import neighbour_signature, session_order
from graphmem.state.chain import Gap, NewEvent, plan_links
from graphmem.state.evolution import Assertion, KnownState, TopicSnapshot, plan_evidence, relation_of
from graphmem.state.related import StoredMatch, related_pairs


def _day(d: int) -> datetime:
    return datetime(2024, 1, 1 + d, tzinfo=timezone.utc)


# ---------------------------------------------------------------- chain
def test_new_topic_is_one_chain_in_key_order() -> None:
    events = [NewEvent("c", "t", "3"), NewEvent("a", "t", "1"), NewEvent("b", "t", "2")]
    plan = plan_links(events, {}, {})
    assert plan.first == [("t", "a")] and plan.unfirst == [] and plan.unlink == []
    assert plan.link == [("a", "b"), ("b", "c")]


def test_several_new_events_in_one_gap_late_events_and_a_new_first() -> None:
    # stored chain of topic t: s1 -> s2 -> s3 (keys 10, 20, 30)
    events = [NewEvent("n15", "t", "15"), NewEvent("n12", "t", "12"),   # both between s1 and s2
              NewEvent("n05", "t", "05"),                                # before the first
              NewEvent("n35", "t", "35"),                                # after the last
              NewEvent("u1", "u", "01")]                                 # another, empty topic
    gaps = {"n15": Gap("s1", "s2"), "n12": Gap("s1", "s2"), "n05": Gap(None, "s1"),
            "n35": Gap("s3", None)}
    plan = plan_links(events, gaps, {"t": "s1", "u": None})
    assert sorted(plan.unlink) == [("s1", "s2")]
    assert sorted(plan.link) == sorted([("s1", "n12"), ("n12", "n15"), ("n15", "s2"),
                                        ("n05", "s1"), ("s3", "n35")])
    assert plan.unfirst == [("t", "s1")]
    assert sorted(plan.first) == [("t", "n05"), ("u", "u1")]


def test_duplicate_chain_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="sort_key"):
        plan_links([NewEvent("a", "t", "1"), NewEvent("b", "t", "1")], {}, {})
    with pytest.raises(ValueError, match="twice"):
        plan_links([NewEvent("a", "t", "1"), NewEvent("a", "u", "2")], {}, {})


# ---------------------------------------------------------------- state evolution
def _assert(event: str, topic: str, value: str, day: int, session: str = "s", mutable: bool = True,
            vec: list[float] | None = None) -> Assertion:
    return Assertion(event_id=event, topic_id=topic, session=session, state={
        "id": f"state-{event}", "value": value, "mutable": mutable, "valid_from": _day(day),
        "embedding": np.asarray(vec or [1.0, float(day)], dtype=np.float32), "content": value})


def test_initial_confirm_change_in_one_batch() -> None:
    plan = plan_evidence([_assert("e1", "t", "lyon", 1), _assert("e2", "t", "lyon", 2),
                          _assert("e3", "t", "paris", 5)], {}, 0.95)
    assert [r[1] for r in plan.relations] == ["initial", "confirm", "change"]
    rows = {r["id"]: r for r in plan.new_states}
    assert rows["state-e1"]["evidence_count"] == 2 and rows["state-e1"]["valid_to"] == _day(5)
    assert rows["state-e3"]["valid_to"] is None and not rows["state-e3"]["conflict"]
    assert plan.evidence == [("state-e1", "e2")]
    assert plan.current == {"t": (None, "state-e3")} and plan.initial == {"t": (None, "state-e1")}
    assert plan.link == [("state-e1", "state-e3")] and plan.unlink == [] and plan.stored == {}


def test_confirm_by_cosine_and_unusable_vectors_never_confirm() -> None:
    cur = KnownState(id="c", value="a", valid_from=_day(1), embedding=[1.0, 0.0])
    new = {"value": "b", "mutable": True, "valid_from": _day(2), "embedding": [0.99, 0.05]}
    assert relation_of(cur, new, "s", 0.95) == "confirm"
    for bad in ([float("nan"), 0.0], [0.0, 0.0], [1.0, 0.0, 0.0], None):
        cur.embedding = bad
        assert relation_of(cur, new, "s", 0.95) == "change"


def test_conflicts_immutable_and_same_instant_from_another_session() -> None:
    cur = KnownState(id="c", value="boston", valid_from=_day(1), embedding=[1.0, 0.0],
                     mutable=False, session="s1")
    snap = {"t": TopicSnapshot(current=cur, initial_id="c")}
    plan = plan_evidence([_assert("e2", "t", "dublin", 3, vec=[0.0, 1.0])], snap, 0.95)
    assert plan.relations == [("e2", "conflict", "state-e2")]
    assert plan.conflicts == [("state-e2", "c")] and plan.stored == {"c": {"conflict": True}}
    assert plan.new_states[0]["conflict"] and plan.current == {} and plan.link == []
    cur2 = KnownState(id="c", value="tea", valid_from=_day(4), embedding=[1.0, 0.0], session="s1")
    same_instant = _assert("e3", "t", "coffee", 4, session="s2", vec=[0.0, 1.0])
    assert relation_of(cur2, same_instant.state, "s2", 0.95) == "conflict"
    assert relation_of(cur2, same_instant.state, "s1", 0.95) == "change"


def test_history_inserts_before_the_current_state() -> None:
    # stored chain: a (day 1) -> c (day 10, current); a late assertion of day 5, then one of day 0
    a = KnownState(id="a", value="x", valid_from=_day(1), valid_to=_day(10), next_id="c",
                   embedding=[1.0, 0.0])
    c = KnownState(id="c", value="z", valid_from=_day(10), embedding=[0.0, 1.0])
    snap = {"t": TopicSnapshot(current=c, initial_id="a", priors=[a], valid_from={"a": _day(1)})}
    late = _assert("e5", "t", "y", 5, vec=[0.6, -0.8])
    plan = plan_evidence([late], snap, 0.95)
    assert plan.relations == [("e5", "history", "state-e5")]
    assert plan.unlink == [("a", "c")] and sorted(plan.link) == [("a", "state-e5"), ("state-e5", "c")]
    assert plan.stored == {"a": {"valid_to": _day(5)}}
    assert plan.new_states[0]["valid_to"] == _day(10) and plan.current == {}
    earliest = plan_evidence([_assert("e0", "t", "w", 0, vec=[0.6, -0.8])],
                             {"t": TopicSnapshot(current=c, initial_id="a", valid_from={"a": _day(1)})},
                             0.95)
    assert earliest.initial == {"t": ("a", "state-e0")} and earliest.link == [("state-e0", "a")]
    assert earliest.new_states[0]["valid_to"] == _day(1)


def test_one_event_asserting_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="asserts twice"):
        plan_evidence([_assert("e1", "t", "a", 1), _assert("e1", "t", "b", 2)], {}, 0.95)


# ---------------------------------------------------------------- related pairs
def test_related_pairs_top_k_other_topics_threshold_and_stored() -> None:
    vecs = np.array([[1.0, 0.0], [0.99, 0.14], [0.98, 0.2], [0.0, 1.0], [np.nan, 0.0]])
    ids, topics = ["a", "b", "c", "d", "e"], ["t1", "t2", "t1", "t3", "t2"]
    pairs = related_pairs(ids, topics, vecs, threshold=0.6, per_event=1)
    # a's best other-topic partner is b (c shares a's topic), b's and c's are each other;
    # d has none >= 0.6; e is unusable. Each pair once, from the earlier new event.
    assert [(x, y, round(s, 4)) for x, y, s in pairs] == [("a", "b", 0.9901), ("b", "c", 0.9981)]
    stored = [StoredMatch(index=3, id="old", topic_id="t9", similarity=0.8),
              StoredMatch(index=3, id="same", topic_id="t3", similarity=0.99)]
    with_stored = related_pairs(ids, topics, vecs, 0.6, 1, stored)
    assert ("d", "old", 0.8) in with_stored and all(y != "same" for _, y, _ in with_stored)
    assert related_pairs(ids, topics, vecs, 0.6, 0) == []


def test_related_pairs_each_undirected_pair_once() -> None:
    vecs = np.array([[1.0, 0.0], [1.0, 0.01]])
    assert [(a, b) for a, b, _ in related_pairs(["x", "y"], ["t1", "t2"], vecs, 0.5, 3)] == [("x", "y")]
    with pytest.raises(ValueError):
        related_pairs(["x"], ["t1", "t2"], vecs, 0.5, 3)


# ---------------------------------------------------------------- session order
def _turn(i: int, text: str, session: str = "s1") -> Turn:
    return Turn(source_id=f"D{i}", speaker="Ann" if i % 2 else "Bob", text=text,
                timestamp=_day(1), session=session, position=i)


TEXTS = ["we met at the old harbour cafe", "I adopted a grey cat last week",
         "what is the cat called now", "her name is Misty and she sleeps all day",
         "that sounds lovely and calm"]


def test_session_order_of_a_whole_conversation_is_unit_rows() -> None:
    turns = [_turn(i, t) for i, t in enumerate(TEXTS)]
    ids = [f"e{i}" for i in range(5)]
    order = session_order(turns, ids, {}, "ns")
    expected = unit_rows(turns, None, namespace="ns", ids=ids)
    assert [order.units[i] for i in ids] == expected
    assert order.link == [("e0", "e1"), ("e1", "e2"), ("e2", "e3"), ("e3", "e4")]
    assert order.refresh == [] and order.unlink == []


def _stored(i: int, prev: str | None, nxt: str | None, far: dict | None = None) -> dict:
    return {"id": f"e{i}", "seq": i, "speaker": "Ann" if i % 2 else "Bob", "text": TEXTS[i],
            "session": "s1", "occurred_at": None, "prev_id": prev, "next_id": nxt,
            "embedding": [0.5, 0.5], "topic_id": "t", "conversation": "c", "source_ids": [f"D{i}"],
            "far": far}


def test_appended_and_inserted_turns_refresh_their_stored_neighbours() -> None:
    whole = unit_rows([_turn(i, t) for i, t in enumerate(TEXTS)], None, namespace="ns",
                      ids=[f"e{i}" for i in range(5)])
    # e0, e1, e3 stored (e0 -> e1 -> e3); e2 (between e1 and e3) and e4 (after e3) arrive
    far0 = {"id": "e0", "seq": 0, "speaker": "Bob", "text": TEXTS[0], "session": "s1"}
    neighbours = {
        "e2": {"predecessor": _stored(1, "e0", "e3", far0), "successor": _stored(3, "e1", None)},
        "e4": {"predecessor": _stored(3, "e1", None, {"id": "e1", "seq": 1, "speaker": "Ann",
                                                      "text": TEXTS[1], "session": "s1"}),
               "successor": None}}
    order = session_order([_turn(4, TEXTS[4]), _turn(2, TEXTS[2])], ["e4", "e2"], neighbours, "ns")
    assert order.units["e2"] == whole[2] and order.units["e4"] == whole[4]
    refreshed = {r["id"]: r for r in order.refresh}
    assert set(refreshed) == {"e1", "e3"}
    assert refreshed["e1"]["window_text"] == whole[1]["window_text"]
    assert refreshed["e3"]["window_text"] == whole[3]["window_text"]
    assert (refreshed["e3"]["prev_id"], refreshed["e3"]["next_id"]) == ("e2", "e4")
    assert order.unlink == [("e1", "e3")]
    assert sorted(order.link) == [("e1", "e2"), ("e2", "e3"), ("e3", "e4")]
    sig = neighbour_signature([{"id": "e4", **neighbours["e4"]}])
    assert sig == {"e4": ("e3", "e1", None, None)}


def test_a_window_vector_never_confirms_by_cosine() -> None:
    cur = KnownState(id="c", value="a", valid_from=_day(1), embedding=[1.0, 0.0])
    new = {"value": "b", "mutable": True, "valid_from": _day(2), "embedding": [1.0, 0.0]}
    assert relation_of(cur, new, "s", 0.95, claim_vector=False) == "change"
    assert relation_of(cur, {**new, "value": "a"}, "s", 0.95, claim_vector=False) == "confirm"
    snap = {"t": TopicSnapshot(current=cur)}
    a = Assertion(event_id="e", topic_id="t", session="s", state={**new, "id": "s-e"},
                  claim_vector=False)
    assert plan_evidence([a], snap, 0.95).relations == [("e", "change", "s-e")]

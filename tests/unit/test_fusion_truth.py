"""The fused recall tells the truth about time and gives one item per conversation turn: the
pure fusion (:func:`graphmem.agent.fuse_results`) on crafted results, no database."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.documents import Document

from graphmem.agent.recall import fuse_results
from graphmem.documents import conversation_fusion_key, item_document, turn_key
from graphmem.memory import RecallItem, RecallResult
from graphmem.agent.rank_fusion import put_superseded_after, reciprocal_rank_fusion, replaces

NINE = "2024-05-03T09:00:00+00:00"
SIX = "2024-05-03T18:00:00+00:00"


def _validity(state: str, current: bool, valid_from: str, valid_to: str | None,
              topic: str = "t-drink", conflict: bool = False) -> dict:
    return {"topic_id": topic, "state_id": state, "current": current, "valid_from": valid_from,
            "valid_to": valid_to, "conflict": conflict}


def _result(memory: str, rows: list[tuple]) -> tuple[RecallResult, list[Document]]:
    """rows: (id, kind, text, source_ids, validity or None), best first."""
    items = [RecallItem(id=i, memory=memory, kind=kind, text=text, score=1.0 - n / 10,
                        source_ids=src) for n, (i, kind, text, src, _) in enumerate(rows)]
    docs = []
    for rank, (item, row) in enumerate(zip(items, rows, strict=True), start=1):
        doc = item_document(item, "ns", rank, [], {}, conversation_fusion_key(item.source_ids, "chat-1"))
        if row[4] is not None:
            doc.metadata["validity"] = row[4]
        docs.append(doc)
    return RecallResult[RecallItem](memory=memory, namespace="ns", query="q", items=items), docs


def test_superseded_turn_ranks_after_the_state_that_replaced_it_and_keeps_its_judgement():
    tea = _validity("s-tea", False, NINE, SIX)
    coffee = _validity("s-coffee", True, SIX, None)
    # state memory ranks the tea turn's event first; associative memory too
    state = _result("state", [("e-tea", "event", "user: I drink tea.", ["m1"], tea),
                              ("s-coffee", "state", "user drinks coffee", ["m2"], coffee)])
    assoc = _result("associative", [("p-tea", "episode", "user: I drink tea.", ["m1"], None),
                                    ("p-coffee", "episode", "user: Now coffee.", ["m2"], None)])
    items = fuse_results([state, assoc], k=10)
    assert [i.source_ids for i in items] == [["m2"], ["m1"]]           # one item per turn
    first, second = items
    assert first.id == "s-coffee" and first.current is True and first.superseded_by is None
    assert second.current is False and second.valid_to == datetime(2024, 5, 3, 18, tzinfo=timezone.utc)
    assert second.superseded_by == turn_key("m2", "chat-1") == first.fusion_key
    assert second.score <= first.score
    assert second.ranks == {"state": 1, "associative": 1} and first.ranks == {"state": 2, "associative": 2}
    assert set(second.node_ids) == {"e-tea", "p-tea"} and set(first.node_ids) == {"s-coffee", "p-coffee"}


def test_an_episode_best_occurrence_keeps_the_state_judgement():
    tea = _validity("s-tea", False, NINE, SIX)
    coffee = _validity("s-coffee", True, SIX, None)
    state = _result("state", [("s-coffee", "state", "user drinks coffee", ["m2"], coffee),
                              ("e-tea", "event", "user: I drink tea.", ["m1"], tea)])
    assoc = _result("associative", [("p-tea", "episode", "user: I drink tea.", ["m1"], None),
                                    ("p-coffee", "episode", "user: Now coffee.", ["m2"], None)])
    items = fuse_results([state, assoc], k=10)
    assert [i.id for i in items] == ["s-coffee", "p-tea"]
    assert items[1].memory == "associative" and items[1].current is False
    assert items[1].metadata["validity"]["state_id"] == "s-tea"


def test_same_turn_as_two_items_of_one_list_counts_once():
    # a state of turn m1 and the event of turn m1 in the same list: one item, one contribution
    state = _result("state", [("s1", "state", "Ann likes tea", ["m1"], None),
                              ("e1", "event", "Ann: I like tea.", ["m1"], None),
                              ("e2", "event", "Ann: I walk.", ["m2"], None)])
    items = fuse_results([state], k=10)
    assert [i.id for i in items] == ["s1", "e2"]
    assert items[0].score == pytest.approx(1 / 61) and items[0].ranks == {"state": 1}
    assert set(items[0].node_ids) == {"s1", "e1"}


def test_turn_keys_are_per_conversation_and_ignore_text():
    assert turn_key("D1:3", "conv-26") != turn_key("D1:3", "conv-30")
    assert conversation_fusion_key(["m1", "m1"], "c") == turn_key("m1", "c")
    assert conversation_fusion_key(["m1", "m2"], "c") is None
    assert conversation_fusion_key(["m1", "m2"], "c", ["m2"]) == turn_key("m2", "c")
    assert turn_key("a", "b:c") != turn_key("b:c", "a") and turn_key("x:y", "z") != turn_key("y", "z:x")


def test_conflicts_and_other_topics_never_reorder():
    tea = _validity("s-tea", False, NINE, SIX)
    assert not replaces(_validity("s-x", True, SIX, None, topic="t-other"), tea)
    assert not replaces(_validity("s-c", True, SIX, None, conflict=True), tea)
    assert not replaces(tea, _validity("s-coffee", True, SIX, None))       # current: not replaced
    flagged = _validity("s-tea", False, NINE, SIX, conflict=True)
    assert not replaces(_validity("s-coffee", True, SIX, None), flagged)


SPANS = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans()), min_size=1,
                 max_size=7)


@given(SPANS, st.permutations(range(7)))
def test_no_superseded_state_outranks_a_replacing_one(spans, perm):
    """Property: after the rule, every pair where b replaces a has b above a; documents without
    a judgement keep their relative order; scores never increase down the list."""
    docs = []
    for n, (start, length, current) in enumerate(spans):
        valid_from = datetime(2024, 1, 1 + start, tzinfo=timezone.utc)
        valid_to = None if current else datetime(2024, 1, 1 + start + length, tzinfo=timezone.utc)
        docs.append(Document(page_content=f"d{n}", id=f"d{n}", metadata={
            "fusion_key": f"k{n}", "validity": _validity(
                f"s{n}", current, valid_from.isoformat(), valid_to and valid_to.isoformat())}))
    docs.append(Document(page_content="free", id="free", metadata={"fusion_key": "free"}))
    order = [i for i in perm if i < len(docs)]
    ranked = [docs[i] for i in order] + [d for i, d in enumerate(docs) if i not in order]
    for rank, doc in enumerate(ranked):
        doc.metadata["rrf_score"] = 1.0 / (60 + rank)
    out = put_superseded_after(ranked)
    assert sorted(d.id for d in out) == sorted(d.id for d in ranked)
    position = {d.id: i for i, d in enumerate(out)}
    for a in out:
        for b in out:
            if replaces(b.metadata.get("validity"), a.metadata.get("validity")):
                assert position[b.id] < position[a.id]
    scores = [d.metadata["rrf_score"] for d in out]
    assert scores == sorted(scores, reverse=True)


def test_rrf_keeps_best_rank_and_validity_of_best_judged_occurrence():
    judged = _validity("s1", True, NINE, None)
    a = [Document(page_content="x", id="e1", metadata={"memory": "state", "fusion_key": "K",
                                                        "validity": judged}),
         Document(page_content="y", id="e2", metadata={"memory": "state", "fusion_key": "K"})]
    b = [Document(page_content="z", id="p1", metadata={"memory": "associative", "fusion_key": "K"})]
    [doc] = reciprocal_rank_fusion([a, b])
    assert doc.metadata["ranks"] == {"state": 1, "associative": 1}
    assert doc.metadata["rrf_score"] == pytest.approx(2 / 61)
    assert doc.metadata["validity"] == judged and doc.metadata["fused_ids"] == ["e1", "e2", "p1"]

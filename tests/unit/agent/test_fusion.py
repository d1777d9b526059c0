"""The fused recall's pure part: RRF over memories, dedupe by fusion key, provenance kept."""

from __future__ import annotations

from graphmem.agent.recall import fuse_results
from graphmem.documents import item_document, turn_key
from graphmem.memory import PathStep, RecallItem, RecallResult


def _result(memory: str, items: list[tuple[str, str, list[str]]]):
    result = RecallResult[RecallItem](memory=memory, namespace="ns", query="q", items=[
        RecallItem(id=i, memory=memory, kind="episode" if memory == "associative" else "event",
                   text=text, score=1.0 - n / 10, source_ids=src,
                   path=[PathStep(action="vector_seed", node="question", id="question")])
        for n, (i, text, src) in enumerate(items)])
    docs = [item_document(it, "ns", rank, [], {}, turn_key(it.source_ids[0], "c") if it.source_ids else None)
            for rank, it in enumerate(result.items, start=1)]
    return result, docs


def test_same_turn_is_one_item_and_ranks_sum():
    state = _result("state", [("e1", "Ann: tea", ["m1"]), ("e2", "Ann: coffee", ["m2"])])
    assoc = _result("associative", [("p2", "Ann: coffee", ["m2"]), ("p3", "Ann: walk", ["m3"])])
    items = fuse_results([state, assoc], k=10)
    assert [i.source_ids for i in items] == [["m2"], ["m1"], ["m3"]]
    top = items[0]
    assert top.ranks == {"state": 2, "associative": 1} and top.memory == "associative"
    assert top.memories == ["associative", "state"] and set(top.node_ids) == {"p2", "e2"}
    assert top.score > items[1].score and top.path[0].node == "question"


def test_k_cuts_and_rank_two_survives():
    a = _result("state", [(f"e{i}", f"t{i}", [f"m{i}"]) for i in range(5)])
    b = _result("associative", [(f"p{i}", f"u{i}", [f"n{i}"]) for i in range(5)])
    items = fuse_results([a, b], k=4)
    assert len(items) == 4
    assert {i.id for i in items} == {"e0", "p0", "e1", "p1"}

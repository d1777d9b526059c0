"""Pure parts of the LangChain retrievers: the shared Document shape, reciprocal rank fusion,
recall options read from the memories' signatures (the toy-memory tests in
test_extensibility.py cover the retrievers end to end without a database)."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from graphmem.errors import InvalidInputError
from graphmem.memory import RecallItem, memory_names
from graphmem.langchain.retrievers import (
    RRF_K,
    item_document,
    recall_options,
    reciprocal_rank_fusion,
    turn_key,
)


def _doc(i: str, memory: str, key: str | None = None) -> Document:
    return Document(page_content=i, id=i, metadata={"memory": memory, "node_ids": [i],
                                                     "fusion_key": key or i})


def test_rrf_values_ties_and_shared_keys() -> None:
    a = [_doc("a1", "state", "turn:D1"), _doc("a2", "state")]
    b = [_doc("b1", "associative"), _doc("b2", "associative", "turn:D1")]
    fused = reciprocal_rank_fusion([a, b])
    assert [d.id for d in fused] == ["a1", "b1", "a2"]
    top = fused[0].metadata
    assert top["rrf_score"] == pytest.approx(1 / 61 + 1 / 62)
    assert top["ranks"] == {"state": 1, "associative": 2}
    assert top["fused_ids"] == ["a1", "b2"] and top["node_ids"] == ["a1", "b2"]
    # a tie (b1 and nothing else at 1/61) breaks by best rank, then list order
    assert fused[1].metadata["rrf_score"] == pytest.approx(1 / 61)
    assert fused[2].metadata["rrf_score"] == pytest.approx(1 / 62)
    assert RRF_K == 60


def test_rrf_weights_and_bad_input() -> None:
    a, b = [_doc("a", "state")], [_doc("b", "insight")]
    assert [d.id for d in reciprocal_rank_fusion([a, b], weights=[1.0, 2.0])] == ["b", "a"]
    assert [d.id for d in reciprocal_rank_fusion([a, b], k=1)] == ["a", "b"]
    with pytest.raises(InvalidInputError, match="k must be > 0"):
        reciprocal_rank_fusion([a], k=0)
    with pytest.raises(InvalidInputError, match="weight"):
        reciprocal_rank_fusion([a, b], weights=[1.0])
    with pytest.raises(InvalidInputError, match="without id"):
        reciprocal_rank_fusion([[Document(page_content="x")]])


def test_item_document_and_turn_key() -> None:
    key = turn_key("D1:3", "conv-26")
    event = RecallItem(id="e1", memory="state", kind="event", text="Caroline: hi", score=0.9,
                       source_ids=["D1:3"])
    doc = item_document(event, "ns", 1, ["t1", None, "e1"], {"dia_ids": ["D1:3"]}, key)
    assert doc.id == "e1" and doc.metadata["node_ids"] == ["e1", "t1"]
    assert {"memory", "namespace", "node_ids", "score", "rank", "kind", "provenance",
            "fusion_key"} <= set(doc.metadata) and doc.metadata["fusion_key"] == key
    episode = event.model_copy(update={"id": "v1", "memory": "associative", "kind": "episode"})
    other = item_document(episode, "ns", 1, [], {}, key)
    # the same turn found by two memories fuses into one document
    assert [d.id for d in reciprocal_rank_fusion([[doc], [other]])] == ["e1"]
    assert item_document(event, "ns", 2, [], {}).metadata["fusion_key"] == "e1"


def test_recall_options_come_from_the_signatures() -> None:
    for name in memory_names():
        options = recall_options(name)
        assert "query" not in options and "k" not in options and "self" not in options

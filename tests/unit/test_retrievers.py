"""Pure parts of the LangChain retrievers: recall results -> Documents, reciprocal rank fusion."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from langchain_core.documents import Document

from graphmem.associative.models import Evidence, PathStep
from graphmem.associative.models import RecallResult as AssociativeResult
from graphmem.errors import InvalidInputError
from graphmem.experience.memory import RecalledExperience
from graphmem.experience.memory import RecallResult as ExperienceResult
from graphmem.experience.store import CrossInsight, RecalledTask
from graphmem.insight.models import RecalledInsight, RecallParams
from graphmem.insight.models import RecallResult as InsightResult
from graphmem.retrievers import (
    RRF_K,
    associative_documents,
    experience_documents,
    insight_documents,
    reciprocal_rank_fusion,
    state_documents,
)
from graphmem.state.models import Hit
from graphmem.state.models import RecallResult as StateResult


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


def test_insight_documents() -> None:
    result = InsightResult(query="q", params=RecallParams(), insights=[
        RecalledInsight(id="i1", content="Cover the pot.", s=2, c=1, r=1.0,
                        supporting_query_ids=["q1", "q2"], conflicting_query_ids=["q3"])])
    [doc] = insight_documents(result, "ns")
    assert doc.id == "i1" and doc.page_content == "Cover the pot."
    assert doc.metadata["node_ids"] == ["i1", "q1", "q2", "q3"]
    assert doc.metadata["provenance"]["supporting_query_ids"] == ["q1", "q2"]
    assert (doc.metadata["score"], doc.metadata["memory"], doc.metadata["namespace"]) == (1.0, "insight", "ns")


def test_experience_documents() -> None:
    task = RecalledTask(id="t1", task_key="6_45", query="boil water", intra_insight="use the stove",
                        intra_renderer="heuristic", similarity=0.8)
    cross = CrossInsight(neighbour_id="t2", neighbour_key="7_1", neighbour_query="melt ice",
                         neighbour_similarity=0.5, similarity=0.7, insight="heat it")
    result = ExperienceResult(query="q", k=1, t=1,
                              experiences=[RecalledExperience(task=task, cross=[cross])])
    [doc] = experience_documents(result, "ns")
    assert doc.page_content == ("Task: boil water\nInsight: use the stove\n"
                                "Related task 7_1: heat it")
    assert doc.metadata["provenance"]["task_ids"] == ["6_45", "7_1"]
    assert doc.metadata["node_ids"] == ["t1", "t2"] and doc.metadata["score"] == 0.8


def test_state_and_associative_documents_share_a_turn_key() -> None:
    when = datetime(2023, 5, 8, tzinfo=timezone.utc)
    state = StateResult(question="q", intent="factual", controller="heuristic", source_ids=["D1:3"],
                        rounds=[], hits=[Hit(kind="event", id="e1", text="Caroline: hi",
                                             score=0.9, source_ids=["D1:3"], topic_id="t1",
                                             occurred_at=when)])
    [sdoc] = state_documents(state, "ns")
    assert sdoc.metadata["provenance"]["dia_ids"] == ["D1:3"]
    assert sdoc.metadata["provenance"]["occurred_at"] == "2023-05-08T00:00:00+00:00"
    assert sdoc.metadata["node_ids"] == ["e1", "t1"]
    path = [PathStep(action="vector_seed", node="question", id="question", text="q"),
            PathStep(action="cue_to_tag", node="cue", id="c1", text="caroline")]
    assoc = AssociativeResult(question="q", namespace="ns", controller="heuristic", rounds=1,
                              stop_reason="x", trace=[], evidence=[
                                  Evidence(id="v1", kind="episode", text="Caroline: hi",
                                           source_ids=["D1:3"], rank_score=0.03, path=path)])
    [adoc] = associative_documents(assoc, "ns")
    assert adoc.metadata["node_ids"] == ["v1", "c1"]
    assert adoc.metadata["provenance"]["path"][1]["id"] == "c1"
    assert adoc.metadata["fusion_key"] == sdoc.metadata["fusion_key"]
    assert [d.id for d in reciprocal_rank_fusion([[sdoc], [adoc]])] == ["e1"]

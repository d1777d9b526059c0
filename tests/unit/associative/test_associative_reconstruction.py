"""Reconstruction state S = (Z, H), heuristic scores, RRF, routers, themes, recall metric."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fakes import ScriptedChatModel, tool_reply

from graphmem.associative.evaluation import Accumulator, evidence_recall
from graphmem.associative.models import AssociativeItem, Evidence
from graphmem.associative.ranking import to_rounds
from graphmem.memory import PathStep, RecallResult
from graphmem.associative.reconstruction import (
    ActiveCue,
    ReconstructionState,
    backward_cue_weight,
    idf,
    rrf_fuse,
    select_top,
    tag_score,
)
from graphmem.associative.routing import HeuristicAssociativeRouter, LLMAssociativeRouter, TagCandidate
from graphmem.associative.themes import group_themes
from graphmem.errors import ControllerError
from graphmem.llm import LLMUsage

STEP = PathStep(action="vector_seed", node="question", id="question", text="q")


def test_idf_downweights_frequent_cues() -> None:
    assert idf(1, 1000) == pytest.approx(1.0, abs=1e-3) or idf(1, 1000) > 0.99
    assert idf(500, 1000) == pytest.approx(math.log(3) / math.log(1001))
    assert idf(5, 0) == 1.0
    assert tag_score(0.5, -0.2) == 0.0 and tag_score(0.5, 0.8) == pytest.approx(0.4)
    assert backward_cue_weight(0.8, 1, 0, 0.5) == pytest.approx(0.4)


def test_state_graph_score_sums_best_path_per_cue() -> None:
    state = ReconstructionState()
    row = {"id": "e1", "kind": "episode", "text": "t", "source_ids": ["D1:1"], "score": 0.5}
    ev, new = state.add_content(row, [STEP], 1, 1.0, "c1", 0.2)
    assert new and ev.score == pytest.approx(0.7)
    _, new = state.add_content(row, [STEP], 2, 1.0, "c1", 0.1)  # weaker path of the same cue
    assert not new and ev.graph_score == pytest.approx(0.2)
    state.add_content(row, [STEP], 2, 1.0, "c2", 0.3)  # a second cue meeting in e1 adds up
    assert ev.graph_score == pytest.approx(0.5) and ev.score == pytest.approx(1.0)
    assert ev.round == 1 and ev.path == [STEP]
    state.add_content({**row, "id": "e2", "score": 0.1}, [STEP], 1, 1.0)
    assert state.top_ids(1) == ["e1"] and state.kth_score(2) == pytest.approx(0.1)
    assert state.kth_score(3) == float("-inf")


def test_activate_is_novelty() -> None:
    state = ReconstructionState()
    assert state.activate(ActiveCue(id="c", text="x", weight=1.0))
    assert not state.activate(ActiveCue(id="c", text="x", weight=1.0))


def test_rrf_and_select_top() -> None:
    fused = rrf_fuse([["a", "b"], ["b", "c"]], [1.0, 1.0], k=60)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert max(fused, key=fused.get) == "b"
    assert select_top([("x", 1.0), ("y", 2.0), ("a", 1.0)], 2) == ["y", "a"]


def _candidates() -> list[TagCandidate]:
    return [TagCandidate(cue_id="c", cue_text="caroline", tag_id=f"t{i}", tag_text=f"tag {i}",
                         cosine=0.1 * i, score=0.1 * i) for i in range(1, 5)]


def test_heuristic_router_takes_the_beam() -> None:
    decision = HeuristicAssociativeRouter(beam=2).route("q", [], _candidates())
    assert decision.tag_ids == ["t4", "t3"] and not decision.sufficient
    assert decision.reason.startswith("heuristic")


def test_llm_router_selects_by_number_and_counts_usage() -> None:
    usage = LLMUsage()
    reply = tool_reply("LLMRouting", {"selected": [1, 3], "sufficient": True, "reason": "enough"})
    evidence = [Evidence(id="e", kind="episode", text="Caroline: hi", source_ids=["D1:1"])]
    decision = LLMAssociativeRouter(ScriptedChatModel(responses=[reply]), usage).route("q", evidence,
                                                                              _candidates())
    assert decision.tag_ids == ["t4", "t2"]  # shown best first: t4, t3, t2, t1
    assert decision.sufficient and decision.reason == "llm: enough"
    assert usage.operations["associative.route"].calls == 1


def test_llm_router_out_of_range_twice_raises() -> None:
    usage = LLMUsage()
    bad = tool_reply("LLMRouting", {"selected": [9], "sufficient": False})
    with pytest.raises(ControllerError, match=r"selected\[0\]: 9 is above the maximum 4"):
        LLMAssociativeRouter(ScriptedChatModel(responses=[bad, bad]), usage).route("q", [], _candidates())
    assert usage.operations["associative.route"].calls == 2


def test_themes_are_deterministic_groups() -> None:
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(2, 8))
    vecs = np.vstack([centers[0] + 0.01 * rng.normal(size=(5, 8)),
                      centers[1] + 0.01 * rng.normal(size=(5, 8))]).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    texts = ["garden roses"] * 5 + ["guitar concert"] * 5
    groups = group_themes(vecs, texts, lambda t: [t.split()[0]], episodes_per_theme=5)
    assert sorted(sorted(g.members) for g in groups) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert {g.name for g in groups} == {"garden", "guitar"}
    assert all(abs(np.linalg.norm(g.centroid) - 1) < 1e-5 for g in groups)
    again = group_themes(vecs, texts, lambda t: [t.split()[0]], episodes_per_theme=5)
    assert [g.members for g in again] == [g.members for g in groups]


def test_recall_metric_and_ranked_source_ids() -> None:
    assert evidence_recall(["a", "b", "c"], ["c", "d"], 2) == 0.0
    assert evidence_recall(["a", "b", "c"], ["c", "d"], 3) == 0.5
    with pytest.raises(ValueError):
        evidence_recall(["a"], [], 1)
    acc = Accumulator([1, 2])
    acc.add("multi_hop", ["a", "b"], ["b"], 2, 0.1)
    acc.add("temporal", ["a", "b"], ["a"], 1, 0.1)
    scores = acc.scores(with_rounds=True)
    assert scores["overall"].recall == {"@1": 0.5, "@2": 1.0} and scores["overall"].rounds == 1.5
    result = RecallResult[AssociativeItem](query="q", memory="associative", namespace="n", items=[
        AssociativeItem(id="s", kind="semantic_unit", text="x", score=0.3, source_ids=["D1", "D2"]),
        AssociativeItem(id="e", kind="episode", text="y", score=0.2, source_ids=["D2"]),
        AssociativeItem(id="f", kind="episode", text="z", score=0.1, source_ids=["D3"])])
    assert result.source_ids() == ["D1", "D2", "D3"] and result.source_ids(2) == ["D1", "D2"]


def test_trace_becomes_rounds() -> None:
    from graphmem.associative.models import RoundTrace

    rounds = to_rounds([RoundTrace(round=0, new_evidence=["a"], candidates={"vector_seed": 3}),
                        RoundTrace(round=1, new_evidence=["b"], active_cues=["caroline"],
                                   candidates={"cue_to_tag": 4, "cue_tag_to_content": 9,
                                               "theme_to_episode": 2},
                                   stop=True, stop_reason="no_new_cues")])
    assert [(r.number, r.action, r.added) for r in rounds] == [(0, "seed", ["a"]),
                                                              (1, "cue_to_tag", ["b"])]
    assert rounds[1].details["stop_reason"] == "no_new_cues"
    assert rounds[1].details["active_cues"] == ["caroline"] and rounds[1].details["stop"] is True

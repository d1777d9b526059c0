"""Reconstruction scores, state and routers; themes; the trace as rounds (pure)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fakes import ScriptedChatModel, tool_reply

from graphmem.associative.ranking import to_rounds
from graphmem.associative.reconstruction import (
    ReconstructionConfig,
    ReconstructionState,
    question_cue_texts,
    select_top,
    specificity,
    tag_relevance,
)
from graphmem.associative.routing import HeuristicAssociativeRouter, LLMAssociativeRouter, TagCandidate
from graphmem.associative.themes import group_themes
from graphmem.errors import ControllerError
from graphmem.llm import LLMUsage
from graphmem.memory import PathStep

STEP = PathStep(action="question_cue_text", node="cue", id="c1", text="pottery")


def test_specificity_downweights_cues_that_lead_everywhere() -> None:
    assert specificity(1, 1000) == pytest.approx(1.0)
    assert specificity(500, 1000) == pytest.approx(math.log(2) / math.log(1000))
    assert specificity(1000, 1000) == 0.0 and specificity(3, 1) == 0.0 and specificity(0, 10) == 0.0


def test_tag_relevance_is_the_share_of_question_terms() -> None:
    assert tag_relevance(["caroline", "went", "pottery"], ["pottery", "class"]) == pytest.approx(1 / 3)
    assert tag_relevance([], ["x"]) == 0.0
    assert question_cue_texts(["pottery", "", "pottery", "class"]) == ["pottery", "class"]


def test_state_keeps_the_best_path_per_content() -> None:
    state = ReconstructionState()
    assert state.reach("e1", 0.2, "question", [STEP])
    assert not state.reach("e1", 0.1, "e9", [STEP])  # a weaker path changes nothing
    assert state.reach("e1", 0.3, "e9", [STEP, STEP])
    assert state.graph["e1"] == (0.3, "e9") and len(state.paths["e1"]) == 2


def test_config_defaults_are_the_documented_ones() -> None:
    cfg = ReconstructionConfig()
    assert (cfg.steps, cfg.graph_weight, cfg.hub_share, cfg.tag_beam) == (1, 0.25, 0.05, 16)
    assert select_top([("x", 1.0), ("y", 2.0), ("a", 1.0), ("y", 0.5)], 2) == ["y", "a"]


def _candidates() -> list[TagCandidate]:
    return [TagCandidate(cue_id="c", cue_text="caroline", tag_id=f"t{i}", tag_text=f"tag {i}",
                         relevance=0.1 * i, score=0.1 * i) for i in range(0, 5)]


def test_heuristic_router_takes_the_beam_of_positive_scores() -> None:
    decision = HeuristicAssociativeRouter(beam=2).route("q", [], _candidates())
    assert decision.tag_ids == ["t4", "t3"] and not decision.sufficient
    assert HeuristicAssociativeRouter(beam=9).route("q", [], _candidates()).tag_ids == [
        "t4", "t3", "t2", "t1"]  # t0 shares no term with the question
    assert decision.reason.startswith("heuristic")


def test_llm_router_selects_by_number_and_counts_usage() -> None:
    usage = LLMUsage()
    reply = tool_reply("LLMRouting", {"selected": [1, 3], "sufficient": True, "reason": "enough"})
    decision = LLMAssociativeRouter(ScriptedChatModel(responses=[reply]), usage).route(
        "q", [], _candidates())
    assert decision.tag_ids == ["t4", "t2"]  # shown best first: t4, t3, t2, t1, t0
    assert decision.sufficient and decision.reason == "llm: enough"
    assert usage.operations["associative.route"].calls == 1


def test_llm_router_out_of_range_twice_raises() -> None:
    usage = LLMUsage()
    bad = tool_reply("LLMRouting", {"selected": [9], "sufficient": False})
    with pytest.raises(ControllerError, match=r"selected\[0\]: 9 is above the maximum 5"):
        LLMAssociativeRouter(ScriptedChatModel(responses=[bad, bad]), usage).route("q", [], _candidates())
    assert usage.operations["associative.route"].calls == 2


def test_themes_are_deterministic_groups() -> None:
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(2, 8))
    vecs = np.vstack([centers[0] + 0.01 * rng.normal(size=(5, 8)),
                      centers[1] + 0.01 * rng.normal(size=(5, 8))]).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    # every episode has the speaker "mel"; the shared, rarer phrases name the themes
    phrases = [["mel", "garden", "roses"]] * 4 + [["mel", "roses"]] + [["mel", "guitar"]] * 5
    groups = group_themes(vecs, phrases, episodes_per_theme=5)
    assert sorted(sorted(g.members) for g in groups) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert {g.name for g in groups} == {"roses, garden, mel", "guitar, mel"}
    assert all(abs(np.linalg.norm(g.centroid) - 1) < 1e-5 for g in groups)
    again = group_themes(vecs, phrases, episodes_per_theme=5)
    assert [g.members for g in again] == [g.members for g in groups]


def test_trace_becomes_rounds() -> None:
    from graphmem.associative.models import RoundTrace

    rounds = to_rounds([RoundTrace(round=1, new_evidence=["a"], candidates={"units": 3}),
                        RoundTrace(round=2, new_evidence=["b"], active_cues=["caroline"],
                                   candidates={"cue_to_tag": 4, "cue_tag_to_content": 9},
                                   stop=True, stop_reason="step_budget")])
    assert [(r.number, r.action, r.added) for r in rounds] == [(1, "seed", ["a"]),
                                                              (2, "cue_to_tag", ["b"])]
    assert rounds[1].details["stop_reason"] == "step_budget"
    assert rounds[1].details["active_cues"] == ["caroline"] and rounds[1].details["stop"] is True


def test_theme_name_skips_covered_phrases_and_falls_back_to_empty() -> None:
    from graphmem.associative.themes import theme_name

    phrases = [["pottery class", "pottery"], ["pottery class", "clay"], ["dog"]]
    df = {"pottery class": 2, "pottery": 1, "clay": 1, "dog": 1}
    # "pottery" is covered by "pottery class"; "clay" is the next phrase
    assert theme_name([0, 1], phrases, df) == "pottery class, clay"
    assert theme_name([2], [[], [], []], {}) == ""


def test_episode_phrases_keeps_keyword_and_entity_cues_in_extraction_order() -> None:
    from graphmem.associative.construction import episode_phrases

    rows = {"episodes": [{"id": "e1"}, {"id": "e2"}],
            "cues": [{"id": "c1", "text": "mel", "kind": "entity"},
                     {"id": "c2", "text": "may 2023", "kind": "time"},
                     {"id": "c3", "text": "roses", "kind": "keyword"}],
            "tags": [{"id": "t1", "cue_id": "c1"}, {"id": "t2", "cue_id": "c2"},
                     {"id": "t3", "cue_id": "c3"}, {"id": "t4", "cue_id": "c3"}],
            "episode_links": [{"tag_id": "t1", "content_id": "e1"}, {"tag_id": "t2", "content_id": "e1"},
                              {"tag_id": "t3", "content_id": "e1"}, {"tag_id": "t4", "content_id": "e1"},
                              {"tag_id": "t2", "content_id": "e2"}, {"tag_id": "t3", "content_id": "s9"}]}
    assert episode_phrases(rows) == [["mel", "roses"], []]

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage

from graphmem.errors import ControllerError
from graphmem.experience.decision_graph import LabelVocabulary, build_decision_graph
from graphmem.experience.edit_path import common_subgraph, graph_edit_path
from graphmem.experience.insights import (
    correction_rules,
    describe_edit_path,
    render_cross_heuristic,
    render_intra_heuristic,
    render_intra_llm,
    workflow_rules,
)
from graphmem.experience.matching import fgw_match
from graphmem.experience.trajectories import Trajectory
from graphmem.llm import LLMUsage


class ScriptedChatModel(FakeMessagesListChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def _pair():
    vocab = LabelVocabulary()
    start = "On the countertop 1, you see an apple 1."
    explore = Trajectory(task_id="t", query="put an apple in the fridge", kind="exploration",
                         initial_observation="You are in the kitchen.", reward=0.0, grammar="alfworld",
                         steps=[{"action": "go to countertop 1", "observation": start},
                                {"action": "take knife 1 from countertop 1", "observation": "Nothing happens."},
                                {"action": "go to sinkbasin 1", "observation": "On the sinkbasin 1, you see nothing."}])
    expert = Trajectory(task_id="t", query="put an apple in the fridge", kind="expert",
                        initial_observation="You are in the kitchen.", reward=1.0, grammar="alfworld",
                        steps=[{"action": "go to countertop 1", "observation": start},
                               {"action": "take apple 1 from countertop 1", "observation": "You pick up the apple 1."},
                               {"action": "go to fridge 1", "observation": "The fridge 1 is closed."}])
    g, h = build_decision_graph(explore, vocab), build_decision_graph(expert, vocab)
    m = fgw_match(g, h)
    return g, h, common_subgraph(g, h, m.mapping), describe_edit_path(g, h, graph_edit_path(g, h, m.mapping))


def test_heuristic_intra_insight_says_what_to_take_instead():
    g, h, common, records = _pair()
    insight = render_intra_heuristic(g.graph["query"], 0.0, common, records)
    assert insight.renderer == "heuristic"
    assert "after 'on countertop you see apple', take 'take apple 1 from countertop 1' instead of" in insight.text
    rules = correction_rules(records)
    assert ("on countertop you see apple", "take apple -> countertop") in {(r.observation, r.action_key) for r in rules}
    assert ("you are in kitchen", "go countertop") in {(r.observation, r.action_key) for r in workflow_rules(common)}


def test_heuristic_cross_insight():
    g, h, common, _ = _pair()
    insight = render_cross_heuristic("q1", "q2", common)
    assert insight.text.startswith("Shared by similar tasks: after 'you are in kitchen', go countertop")


def test_llm_intra_insight_counts_usage_and_retries_once():
    g, h, common, records = _pair()
    good = AIMessage(content="", tool_calls=[{"name": "InsightText", "args": {"insight": "Take the apple, not the knife."}, "id": "1"}],
                     usage_metadata={"input_tokens": 50, "output_tokens": 7, "total_tokens": 57})
    bad = AIMessage(content="", tool_calls=[{"name": "InsightText", "args": {"wrong": 1}, "id": "2"}],
                    usage_metadata={"input_tokens": 50, "output_tokens": 2, "total_tokens": 52})
    usage = LLMUsage()
    out = render_intra_llm(ScriptedChatModel(responses=[bad, good]), usage, "q", 0.0, g, h, common, records)
    assert out.renderer == "llm" and out.text == "Take the apple, not the knife."
    op = usage.operations["experience.intra_insight"]
    assert op.calls == 2 and op.input_tokens == 100 and op.output_tokens == 9
    with pytest.raises(ControllerError, match="experience.intra_insight"):
        render_intra_llm(ScriptedChatModel(responses=[bad, bad]), LLMUsage(), "q", 0.0, g, h, common, records)

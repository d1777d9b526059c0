"""The graph controller (eqs. 11–12): heuristic rules, operation-set switch, LLM structured output
with one retry and a typed error."""

from __future__ import annotations

import pytest
from fakes import ScriptedChatModel, tool_reply

from graphmem.errors import ControllerError
from graphmem.insight.controller import (
    ControllerInput,
    HeuristicInsightController,
    HeuristicPolicy,
    LLMInsightController,
)
from graphmem.insight.models import InsightState, OperationSet
from graphmem.llm import LLMUsage


def state(id_: str, pos: int, neg: int, sup=(), con=()) -> InsightState:
    return InsightState(id=id_, content=f"insight {id_}", active=True, positive_evidence=pos,
                        negative_evidence=neg, supporting_query_ids=list(sup),
                        conflicting_query_ids=list(con))


def ctx(status: str, retrieved, trajectory=("search[X]", "finish[SUPPORTS]"), related=()):
    return ControllerInput(query="X is Y.", query_id="q", status=status,
                           trajectory=list(trajectory), retrieved=list(retrieved),
                           related_query_ids=list(related))


def test_resolved_keeps_every_retrieved_insight_and_adds() -> None:
    plan = HeuristicInsightController().decide(ctx("resolved", [state("a", 1, 5), state("b", 0, 0)]),
                                        OperationSet.ALL, LLMUsage())
    assert plan.controller == "heuristic"
    assert [(e.insight_id, e.operation) for e in plan.edits] == [("a", "KEEP"), ("b", "KEEP")]
    assert all(e.reason.startswith("heuristic:") for e in plan.edits)
    assert plan.add and plan.add_content == ('For tasks like "X is Y.", this resolved it: '
                                             'search[X] -> finish[SUPPORTS].')


def test_failed_archives_only_past_the_margin() -> None:
    # a: pos 1, neg 2 -> 3-1 = 2 >= 2 archive; b: pos 2, neg 2 -> 3-2 = 1 keep;
    # c: the query is already in Ω− (re-ingest) -> neg stays 1, 1-0 = 1 keep
    retrieved = [state("a", 1, 2), state("b", 2, 2), state("c", 0, 1, con=["q"])]
    plan = HeuristicInsightController().decide(ctx("failed", retrieved), OperationSet.ALL, LLMUsage())
    assert [e.operation for e in plan.edits] == ["ARCHIVE", "KEEP", "KEEP"]
    assert "3-1 = 2 >= margin 2" in plan.edits[0].reason
    assert not plan.add and plan.add_content is None


def test_margin_is_a_policy() -> None:
    plan = HeuristicInsightController(HeuristicPolicy(archive_margin=4)).decide(
        ctx("failed", [state("a", 1, 2)]), OperationSet.ALL, LLMUsage())
    assert plan.edits[0].operation == "KEEP"


def test_add_keep_set_never_archives() -> None:
    plan = HeuristicInsightController().decide(ctx("failed", [state("a", 0, 9)]), OperationSet.ADD_KEEP,
                                        LLMUsage())
    assert plan.edits[0].operation == "KEEP"
    assert "ARCHIVE not in the operation set" in plan.edits[0].reason


def test_no_add_when_a_retrieved_insight_is_backed_by_a_related_query() -> None:
    plan = HeuristicInsightController().decide(
        ctx("resolved", [state("a", 1, 0, sup=["q7"])], related=["q7"]), OperationSet.ALL,
        LLMUsage())
    assert not plan.add and "already backed" in plan.add_reason
    plan = HeuristicInsightController().decide(ctx("resolved", [], trajectory=()), OperationSet.ALL,
                                        LLMUsage())
    assert not plan.add and "trajectory is empty" in plan.add_reason


def _edits(*ops):
    return [{"insight_id": i, "operation": op, "reason": "r",
             **({"revised_content": "better text"} if op == "REVISE" else {})}
            for i, op in ops]


def test_llm_plan_is_parsed_and_counted() -> None:
    reply = tool_reply("ControllerOutput", {
        "edits": _edits(("a", "REVISE"), ("b", "ARCHIVE")), "add": True,
        "new_insight": "Check the page history.", "add_reason": "new"}, 11, 7)
    usage = LLMUsage()
    plan = LLMInsightController(ScriptedChatModel(responses=[reply])).decide(
        ctx("failed", [state("a", 1, 0), state("b", 0, 1)]), OperationSet.ALL, usage)
    assert plan.controller == "llm"
    assert [(e.insight_id, e.operation, e.revised_content) for e in plan.edits] == [
        ("a", "REVISE", "better text"), ("b", "ARCHIVE", None)]
    assert plan.add and plan.add_content == "Check the page history."
    op = usage.operations["insight.controller"]
    assert (op.calls, op.input_tokens, op.output_tokens) == (1, 11, 7)


def test_llm_gets_one_retry() -> None:
    bad = tool_reply("ControllerOutput", {"edits": _edits(("a", "DELETE")), "add": False})
    good = tool_reply("ControllerOutput", {"edits": _edits(("a", "KEEP")), "add": False})
    usage = LLMUsage()
    plan = LLMInsightController(ScriptedChatModel(responses=[bad, good])).decide(
        ctx("resolved", [state("a", 1, 0)]), OperationSet.ALL, usage)
    assert plan.edits[0].operation == "KEEP" and usage.calls == 2


@pytest.mark.parametrize("args", [
    {"edits": _edits(("a", "REVISE")), "add": False},            # REVISE not in add_keep_archive
    {"edits": _edits(("zzz", "KEEP")), "add": False},            # unknown insight id
    {"edits": [], "add": False},                                 # a retrieved insight left out
    {"edits": _edits(("a", "KEEP")), "add": True},               # add without new_insight
])
def test_invalid_llm_output_twice_raises(args) -> None:
    reply = tool_reply("ControllerOutput", args)
    with pytest.raises(ControllerError, match="insight.controller"):
        LLMInsightController(ScriptedChatModel(responses=[reply, reply])).decide(
            ctx("failed", [state("a", 1, 0)]), OperationSet.ADD_KEEP_ARCHIVE, LLMUsage())


def test_operation_sets() -> None:
    assert OperationSet("add_keep").edit_operations == ("KEEP",)
    assert OperationSet("add_keep_archive").edit_operations == ("KEEP", "ARCHIVE")
    assert OperationSet("all").edit_operations == ("KEEP", "ARCHIVE", "REVISE")

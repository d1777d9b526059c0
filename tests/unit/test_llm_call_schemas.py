"""Each LLM controller and extractor passes its call-specific JSON schema to the model (when the
model decodes under one) and the schema carries the call's rules."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, ClassVar

import pytest

from graphmem.associative.llm_extraction import LLMCueExtractor, extraction_json_schema
from graphmem.associative.models import EpisodeInput
from graphmem.associative.routing import LLMAssociativeRouter, TagCandidate, routing_json_schema
from graphmem.conversations import Turn
from graphmem.errors import ControllerError
from graphmem.experience.insights import insight_json_schema
from graphmem.insight.controller import (ControllerInput, LLMInsightController,
                                         controller_json_schema, controller_schema)
from graphmem.insight.models import InsightState, OperationSet
from graphmem.llm import LLMUsage
from graphmem.llm_schema import json_schema_errors
from graphmem.state.extraction import LLMStateExtractor, extraction_json_schema as state_schema
from graphmem.state.planner import LLMStatePlanner, planner_json_schema
from tests.fakes import ScriptedChatModel, tool_reply


class SchemaRecordingModel(ScriptedChatModel):
    """A scripted model that says it decodes under a JSON schema and records the schemas."""

    accepts_json_schema: ClassVar[bool] = True
    seen: ClassVar[list[dict[str, Any]]] = []

    def with_structured_output(self, schema: Any, *, json_schema: Any = None, **kwargs: Any):  # noqa: ANN201
        SchemaRecordingModel.seen.append(json_schema)
        return super().with_structured_output(schema, **kwargs)


@pytest.fixture(autouse=True)
def _clear() -> None:
    SchemaRecordingModel.seen.clear()


def test_state_extraction_schema_bounds_indices_and_items() -> None:
    schema = state_schema(2)
    assert not json_schema_errors({"items": [{"index": 1, "subject": "A", "topic": "t"}]}, schema)
    assert json_schema_errors({"items": [{"index": 2, "subject": "A", "topic": "t"}]}, schema)
    assert json_schema_errors({"items": [{"index": 0, "subject": " ", "topic": "t"}]}, schema)
    three = [{"index": 0, "subject": "A", "topic": "t"}] * 3
    assert json_schema_errors({"items": three}, schema)
    reply = tool_reply("ExtractionBatch", {"items": [{"index": 0, "subject": "Ann", "topic": "job"}]})
    turn = Turn(source_id="t0", speaker="Ann", text="I work at a bakery.", timestamp=datetime(2024, 1, 1,
                                                                             tzinfo=timezone.utc))
    out = LLMStateExtractor(SchemaRecordingModel(responses=[reply])).extract([turn])
    assert out[0].topic_key == "job" and SchemaRecordingModel.seen == [state_schema(1)]


def test_planner_schema_is_the_action_enum() -> None:
    reply = tool_reply("ControllerChoice", {"action": "stop"})
    choice = LLMStatePlanner(SchemaRecordingModel(responses=[reply])).choose(
        "What is Ann's job?", "factual", [], [], has_time_range=False)
    assert choice.action == "stop"
    allowed = SchemaRecordingModel.seen[0]["properties"]["action"]["enum"]
    assert "time_range" not in allowed and "stop" in allowed
    assert json_schema_errors({"action": "dance"}, planner_json_schema())


def test_associative_schemas() -> None:
    schema = extraction_json_schema(["D1:1"])
    assert json_schema_errors({"episodes": [{"source_id": "D2:2"}]}, schema)
    assert json_schema_errors({"episodes": [{"source_id": "D1:1", "cues": [
        {"cue": "", "kind": "entity", "tag": "x"}]}]}, schema)
    route = routing_json_schema(3)
    assert not json_schema_errors({"selected": [1, 3], "sufficient": False}, route)
    assert json_schema_errors({"selected": [0], "sufficient": False}, route)
    assert json_schema_errors({"selected": [1], "sufficient": False}, routing_json_schema(0))
    bad = tool_reply("EpisodeBatchExtraction", {"episodes": [{"source_id": "D9:9"}]})
    episode = EpisodeInput(conversation_id="c", source_id="D1:1", text="hi", speaker="Ann", position=0,
                           occurred_at=datetime(2024, 1, 1, tzinfo=timezone.utc))
    with pytest.raises(ControllerError, match="is not one of"):
        LLMCueExtractor(SchemaRecordingModel(responses=[bad, bad])).extract([episode])
    assert SchemaRecordingModel.seen == [schema]
    cands = [TagCandidate(cue_id="c", cue_text="ann", tag_id=f"t{i}", tag_text="x", relevance=0.5,
                          score=0.5) for i in range(2)]
    ok = tool_reply("LLMRouting", {"selected": [2], "sufficient": True})
    decision = LLMAssociativeRouter(SchemaRecordingModel(responses=[ok]), LLMUsage()).route(
        "q", [], cands)
    assert decision.tag_ids == ["t1"] and SchemaRecordingModel.seen[-1] == routing_json_schema(2)


def test_insight_controller_schema_rules() -> None:
    ids, ops = ["i1", "i2"], OperationSet.ALL
    schema = controller_json_schema(controller_schema(ops, ids), ops, ids)
    edit = {"insight_id": "i1", "operation": "KEEP", "reason": "fine"}
    good = {"edits": [edit, {**edit, "insight_id": "i2"}], "add": False}
    assert not json_schema_errors(good, schema)
    assert json_schema_errors({**good, "edits": [edit]}, schema)  # one edit per insight
    assert json_schema_errors({**good, "edits": [edit, edit]}, schema)
    assert json_schema_errors({**good, "add": True}, schema)  # new_insight required
    assert json_schema_errors({**good, "add": True, "new_insight": " "}, schema)
    revise = {**edit, "insight_id": "i2", "operation": "REVISE"}
    assert json_schema_errors({**good, "edits": [edit, revise]}, schema)
    assert not json_schema_errors({**good, "edits": [edit, {**revise, "revised_content": "x"}]},
                                  schema)
    keep_only = controller_json_schema(controller_schema(OperationSet.ADD_KEEP, ids),
                                       OperationSet.ADD_KEEP, ids)
    assert json_schema_errors({**good, "edits": [{**edit, "operation": "ARCHIVE"},
                                                 good["edits"][1]]}, keep_only)
    reply = tool_reply("ControllerOutput", good)
    ctx = ControllerInput(query="q", query_id="q1", status="resolved",
                          retrieved=[InsightState(id=i, content=f"c{i}", active=True) for i in ids])
    plan = LLMInsightController(SchemaRecordingModel(responses=[reply])).decide(
        ctx, ops, LLMUsage())
    assert [e.insight_id for e in plan.edits] == ids and SchemaRecordingModel.seen == [schema]


def test_insight_text_schema_is_non_blank() -> None:
    assert json_schema_errors({"insight": "  "}, insight_json_schema())
    assert not json_schema_errors({"insight": "Cover the pot."}, insight_json_schema())

"""invoke_structured with scripted chat models: every attempt counted with its tokens, one retry,
per-call JSON schemas; constrained_schema on the controllers' reply models."""

from __future__ import annotations

from typing import Literal

import pytest
from fakes import ScriptedChatModel, tool_reply
from langchain_core.messages import AIMessage
from pydantic import BaseModel, Field

from graphmem.errors import ControllerError
from graphmem.llm import LLMTimeoutError, LLMUsage, constrained_schema, invoke_structured
from graphmem.llm_schema import SchemaPathError, check_json_schema, json_schema_errors


class Item(BaseModel):
    index: int
    subject: str
    note: str = ""


class Batch(BaseModel):
    items: list[Item]
    kind: Literal["a", "b"] = "a"


def _usage(usage: LLMUsage, op: str) -> tuple[int, int, int]:
    o = usage.operations[op]
    return o.calls, o.input_tokens, o.output_tokens


def test_malformed_then_good_is_one_retry_counted_as_two_calls() -> None:
    bad = tool_reply("Batch", {"items": [{"index": 0}]}, 20, 5)  # no subject
    good = tool_reply("Batch", {"items": [{"index": 0, "subject": "Ann"}]}, 30, 7)
    usage = LLMUsage()
    out = invoke_structured(ScriptedChatModel(responses=[bad, good]), Batch, [("human", "x")],
                            usage, "state.extract")
    assert out.items[0].subject == "Ann"
    assert _usage(usage, "state.extract") == (2, 50, 12)


def test_two_malformed_replies_raise_and_count_both() -> None:
    bad = tool_reply("Batch", {"items": "nope"}, 11, 2)
    usage = LLMUsage()
    with pytest.raises(ControllerError, match=r"state\.extract: invalid LLM output after 2"):
        invoke_structured(ScriptedChatModel(responses=[bad, bad]), Batch, [("human", "x")],
                          usage, "state.extract")
    assert _usage(usage, "state.extract") == (2, 22, 4)


def test_plain_text_reply_counts_its_tokens() -> None:
    text = AIMessage(content="I think the answer is 4", usage_metadata={
        "input_tokens": 9, "output_tokens": 6, "total_tokens": 15})
    usage = LLMUsage()
    with pytest.raises(ControllerError):
        invoke_structured(ScriptedChatModel(responses=[text]), Batch, [("human", "x")], usage,
                          "associative.route")
    assert _usage(usage, "associative.route") == (2, 18, 12)


class _RaisingOnce(ScriptedChatModel):
    """Raises a timeout carrying usage on its first call, then replies as scripted."""

    raised: int = 0

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # noqa: ANN001, ANN003
        if not self.raised:
            self.raised += 1
            raise LLMTimeoutError("too slow", usage_metadata={"input_tokens": 40,
                                                              "output_tokens": 512})
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_an_exception_is_counted_with_the_tokens_it_carries() -> None:
    good = tool_reply("Batch", {"items": []}, 40, 3)
    usage = LLMUsage()
    out = invoke_structured(_RaisingOnce(responses=[good]), Batch, [("human", "x")], usage,
                            "state.extract")
    assert out.items == []
    assert _usage(usage, "state.extract") == (2, 80, 515)


def test_two_timeouts_raise_controller_error_naming_the_operation() -> None:
    class _Slow(ScriptedChatModel):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # noqa: ANN
            raise LLMTimeoutError("stopped", usage_metadata={"input_tokens": 5,
                                                             "output_tokens": 1})

    usage = LLMUsage()
    with pytest.raises(ControllerError, match="experience.intra_insight") as info:
        invoke_structured(_Slow(responses=[]), Batch, [("human", "x")], usage,
                          "experience.intra_insight")
    assert isinstance(info.value.__cause__, LLMTimeoutError)
    assert _usage(usage, "experience.intra_insight") == (2, 10, 2)


def test_per_call_schema_is_checked_and_retried() -> None:
    schema = constrained_schema(Batch, ranges={"items.index": (0, 1)}, min_length=True)
    out_of_range = tool_reply("Batch", {"items": [{"index": 5, "subject": "Ann"}]}, 10, 4)
    blank = tool_reply("Batch", {"items": [{"index": 1, "subject": "  "}]}, 10, 4)
    good = tool_reply("Batch", {"items": [{"index": 1, "subject": "Ann"}]}, 10, 4)
    usage = LLMUsage()
    out = invoke_structured(ScriptedChatModel(responses=[out_of_range, good]), Batch,
                            [("human", "x")], usage, "state.extract", json_schema=schema)
    assert out.items[0].index == 1 and _usage(usage, "state.extract") == (2, 20, 8)
    with pytest.raises(ControllerError, match=r"items\[0\]\.subject: text is empty"):
        invoke_structured(ScriptedChatModel(responses=[out_of_range, blank]), Batch,
                          [("human", "x")], LLMUsage(), "state.extract", json_schema=schema)


def test_the_retry_tells_the_model_what_was_wrong() -> None:
    bad = tool_reply("Batch", {"items": [{"index": 0}]}, 1, 1)
    good = tool_reply("Batch", {"items": []}, 1, 1)
    seen: list[list] = []

    class _Recording(ScriptedChatModel):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # noqa: ANN
            seen.append(list(messages))
            return super()._generate(messages, stop, run_manager, **kwargs)

    invoke_structured(_Recording(responses=[bad, good]), Batch, [("human", "x")], LLMUsage(),
                      "state.extract")
    assert len(seen[0]) == 1 and len(seen[1]) == 2
    assert "rejected" in seen[1][1].content and "subject" in seen[1][1].content


def test_constrained_schema_paths_enums_ranges_and_lengths() -> None:
    schema = constrained_schema(Batch, enums={"items.subject": ["Ann", "Bob"]},
                                ranges={"items.index": (0, 2)}, max_length=50,
                                max_items={"items": 3})
    item = schema["properties"]["items"]["items"]
    assert "$defs" not in schema and schema["properties"]["items"]["maxItems"] == 3
    assert item["properties"]["index"]["minimum"] == 0
    assert item["properties"]["index"]["maximum"] == 2
    assert item["properties"]["subject"]["enum"] == ["Ann", "Bob"]
    assert item["properties"]["note"]["maxLength"] == 50
    ok = {"items": [{"index": 2, "subject": "Bob"}], "kind": "b"}
    assert json_schema_errors(ok, schema) == []
    bad = {"items": [{"index": 3, "subject": "Cy"}] * 4, "kind": "c"}
    errors = json_schema_errors(bad, schema)
    assert any("more than 3 items" in e for e in errors)
    assert any("above the maximum 2" in e for e in errors)
    assert any("'Cy' is not one of" in e for e in errors)
    assert any("$.kind" in e for e in errors)
    with pytest.raises(ValueError, match="breaks the call's schema"):
        check_json_schema(bad, schema)
    with pytest.raises(SchemaPathError, match="items.nope"):
        constrained_schema(Batch, ranges={"items.nope": (0, 1)})
    with pytest.raises(ValueError, match="empty enum"):
        constrained_schema(Batch, enums={"items.subject": []})
    with pytest.raises(ValueError, match="empty range"):
        constrained_schema(Batch, ranges={"items.index": (0, -1)})


def test_min_length_true_skips_enums_and_empty_defaults() -> None:
    schema = constrained_schema(Batch, min_length=True)
    item = schema["properties"]["items"]["items"]["properties"]
    assert item["subject"]["minLength"] == 1
    assert "minLength" not in item["note"]  # default "" may stay empty
    assert "minLength" not in schema["properties"]["kind"]


class _Opt(BaseModel):
    text: str | None = Field(None)
    picks: list[int] = Field(default_factory=list)


def test_nullable_and_list_of_numbers() -> None:
    schema = constrained_schema(_Opt, min_length=["text"], ranges={"picks": (1, 3)})
    assert json_schema_errors({"text": None, "picks": [1, 3]}, schema) == []
    errors = json_schema_errors({"text": "", "picks": [0]}, schema)
    assert len(errors) == 2


def test_controller_models_take_their_documented_constraints() -> None:
    from graphmem.associative.llm_extraction import EpisodeBatchExtraction
    from graphmem.associative.routing import LLMRouting
    from graphmem.experience.insights import InsightText
    from graphmem.insight.controller import controller_schema
    from graphmem.insight.models import OperationSet
    from graphmem.state.extraction import ExtractionBatch

    state = constrained_schema(ExtractionBatch, ranges={"items.index": (0, 2)},
                               min_length=["items.subject", "items.topic"],
                               max_items={"items": 3})
    assert state["properties"]["items"]["items"]["properties"]["index"]["maximum"] == 2
    assoc = constrained_schema(EpisodeBatchExtraction, enums={"episodes.source_id": ["s1"]},
                               min_length=True, max_items={"episodes": 1})
    episode = assoc["properties"]["episodes"]["items"]["properties"]
    assert episode["source_id"]["enum"] == ["s1"]
    assert episode["cues"]["items"]["properties"]["cue"]["minLength"] == 1
    routing = constrained_schema(LLMRouting, ranges={"selected": (1, 4)})
    assert routing["properties"]["selected"]["items"]["maximum"] == 4
    assert constrained_schema(InsightText, min_length=True)["properties"]["insight"][
        "minLength"] == 1
    ids = ["i1", "i2"]
    ops = OperationSet.ALL
    insight = constrained_schema(controller_schema(ops, ids),
                                 enums={"edits.insight_id": ids,
                                        "edits.operation": list(ops.edit_operations)},
                                 min_length=["new_insight", "edits.reason"])
    edit = insight["properties"]["edits"]["items"]["properties"]
    assert edit["insight_id"]["enum"] == ids and edit["reason"]["minLength"] == 1


def test_insight_controller_rules_become_grammar_friendly_alternatives() -> None:
    from graphmem.insight.controller import controller_schema
    from graphmem.insight.models import OperationSet

    ids = ["i1", "i2"]
    ops = OperationSet.ALL
    model = controller_schema(ops, ids)
    schema = constrained_schema(model, enums={"edits.operation": list(ops.edit_operations)},
                                min_length=["edits.reason"], one_each={"edits.insight_id": ids},
                                required_if={"new_insight": ("add", True),
                                             "edits.revised_content": ("operation", "REVISE")})
    edits = [{"insight_id": "i1", "operation": "KEEP", "reason": "fine"},
             {"insight_id": "i2", "operation": "REVISE", "reason": "r", "revised_content": "x"}]
    good = model.model_validate({"edits": edits, "add": True, "new_insight": "Cover the pot."})
    assert json_schema_errors(good.model_dump(mode="json"), schema) == []
    assert json_schema_errors({"edits": edits, "add": False, "new_insight": None}, schema) == []
    assert json_schema_errors({"edits": edits, "add": True, "new_insight": " "}, schema)
    assert json_schema_errors({"edits": edits[::-1], "add": False}, schema)  # order is fixed
    no_text = [edits[0], {**edits[1], "revised_content": None}]
    assert json_schema_errors({"edits": no_text, "add": False}, schema)
    assert json_schema_errors({"edits": edits[:1], "add": False}, schema)  # one edit missing
    with pytest.raises(ValueError, match="boolean or an enum"):
        constrained_schema(Batch, required_if={"items.note": ("subject", "x")})

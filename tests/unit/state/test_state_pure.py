"""Pure parts of the state memory: extraction, intent, controllers, ranking, time ranges."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage

from graphmem.conversations import Turn
from graphmem.errors import ControllerError
from graphmem.state.planner import HeuristicStatePlanner, LLMStatePlanner, detect_intent
from graphmem.state.extraction import HeuristicStateExtractor, LLMStateExtractor, normalize_value
from graphmem.state.memory import time_range_of
from graphmem.memory import Round
from graphmem.state.models import StateItem
from graphmem.state.topics import TopicAssigner, TopicRef


class ScriptedChatModel(FakeMessagesListChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def _reply(name: str, args: dict) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "1"}],
                     usage_metadata={"input_tokens": 5, "output_tokens": 3, "total_tokens": 8})


def _turn(text: str, meta: dict | None = None) -> Turn:
    return Turn(source_id="D1:1", speaker="Ann", text=text,
                timestamp=datetime(2024, 1, 1, tzinfo=timezone.utc), meta=meta or {})


def test_heuristic_extractor_free_text_and_structured():
    ex = HeuristicStateExtractor()
    statement, question = ex.extract([_turn("I moved to Lyon when I got the job."), _turn("Did you?")])
    assert statement.assertion == "Ann moved to Lyon when Ann got the job." and statement.topic_key is None
    assert statement.value == "ann moved to lyon when ann got the job."
    assert statement.condition == "when I got the job" and statement.topic_name is None
    assert statement.resolved_topic_name() == "Ann: Lyon" == statement.topic_name  # named once
    assert question.assertion is None
    assert (question.topic_key, question.resolved_topic_name()) == ("Ann|small talk", "small talk")
    [fact] = ex.extract([_turn("x", {"kind": "conditional", "attribute": "Beverage_Preference",
                                     "value": "Tea", "condition": "Morning boost", "role": "Point_A"})])
    assert fact.topic_key == "Ann|Beverage_Preference|Morning boost" and fact.value == "tea"
    assert fact.condition == "Morning boost" and fact.mutable
    [static] = ex.extract([_turn("x", {"kind": "static", "attribute": "Birthplace", "value": "Oslo",
                                       "person": "Max"})])
    assert static.subject == "Max" and not static.mutable and static.topic_key == "Max|Birthplace"


def test_normalize_value():
    assert normalize_value({"b": 1, "a": "X"}) == '{"a": "x", "b": 1}'
    assert normalize_value("  Paris  France ") == "paris france"
    assert normalize_value(None) == ""


def test_llm_extractor_scripted_and_retry_failure():
    reply = _reply("ExtractionBatch", {"items": [{"index": 0, "subject": "Ann", "topic": "Ann / Home",
                                                  "assertion": "Ann lives in Lyon", "value": "Lyon"}]})
    ex = LLMStateExtractor(ScriptedChatModel(responses=[reply]))
    [out] = ex.extract([_turn("I live in Lyon.")])
    assert out.topic_key == "ann / home" and out.value == "lyon"
    assert ex.usage.operations["state.extract"].calls == 1
    assert ex.usage.operations["state.extract"].input_tokens == 5
    bad = AIMessage(content="no tool call")
    with pytest.raises(ControllerError):
        LLMStateExtractor(ScriptedChatModel(responses=[bad, bad])).extract([_turn("I live in Lyon.")])


@pytest.mark.parametrize(("question", "intent"), [
    ("When did Caroline go to the support group?", "temporal"),
    ("Where does Ann live now?", "current"),
    ("Where did Ann live before moving?", "history"),
    ("Would Melanie likely enjoy camping?", "multi_hop"),
    ("What is Ann's job?", "current"),
])
def test_detect_intent_rules(question, intent):
    assert detect_intent(question) == intent


def test_heuristic_controller_follows_plan_and_skips_time_range():
    ctrl = HeuristicStatePlanner()
    rounds: list[Round] = []
    actions = []
    for _ in range(5):
        choice = ctrl.choose("When?", "temporal", rounds, [], has_time_range=False)
        actions.append(choice.action)
        rounds.append(Round(number=len(rounds) + 1, action=choice.action, reason=choice.reason,
                            added=["x"]))
        if choice.action == "stop":
            break
    assert actions == ["search_events", "timeline", "stop"]
    assert HeuristicStatePlanner().choose("What?", "factual", [], [], False).action == "search_events"
    assert "heuristic" in rounds[0].reason


def test_llm_controller_scripted():
    ctrl = LLMStatePlanner(ScriptedChatModel(responses=[_reply("ControllerChoice",
                                                             {"action": "state_history", "reason": "r"})]))
    assert ctrl.choose("q", "history", [], [], False).action == "state_history"
    assert ctrl.usage.calls == 1


def test_topic_assigner_threshold_and_subject():
    e1, e2 = np.array([1.0, 0.0], np.float32), np.array([0.0, 1.0], np.float32)
    a = TopicAssigner([TopicRef(id="t", key="k", subject="Ann", name="n", embedding=e1)], threshold=0.5)
    assert a.nearest("Ann", e1)[0].id == "t"
    assert a.nearest("Bob", e1)[0] is None
    assert a.nearest("Ann", e2)[1] == pytest.approx(0.0)


def test_time_range_of_a_question():
    span = time_range_of("What did she do in May 2023?")
    assert span.start == datetime(2023, 5, 1, tzinfo=timezone.utc)
    assert span.end == datetime(2023, 6, 1, tzinfo=timezone.utc)  # half-open: [start, end)
    assert time_range_of("What did she do last week?") is None


def test_a_subject_named_only_inside_a_longer_name_is_subsumed() -> None:
    from graphmem.retrieval.text import analyze
    from graphmem.state.recall import subsumed_subjects, topic_match

    terms = analyze("What is Jackson Andrews's career status?")
    out = subsumed_subjects(["Jackson", "Jackson Andrews", None, "Michael Andrews", "Jackson"], terms)
    assert out == {"Jackson": {"jackson"}}
    assert topic_match("Jackson career status", set(terms) - out["Jackson"]) == 2 / 3
    # named on its own elsewhere in the question: not subsumed
    both = analyze("Does Jackson share Jackson Andrews's career?")
    assert subsumed_subjects(["Jackson", "Jackson Andrews"], both) == {}
    assert subsumed_subjects(["Jackson"], terms) == {}

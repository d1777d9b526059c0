"""A reply that echoes the schema it was shown (field descriptions, titles, enum listings) or the
prompt's instructions, or holds text without content, is a failed call: counted as a failure,
retried once, then ``ControllerError`` — never data. The check reads the schema actually sent
and the system messages, so it knows no particular wording."""

from __future__ import annotations

from typing import ClassVar

import pytest
from fakes import ScriptedChatModel, tool_reply
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from graphmem.associative.llm_extraction import LLMCueExtractor, extraction_json_schema
from graphmem.associative.models import EpisodeInput
from graphmem.errors import ControllerError
from graphmem.experience.insights import InsightText
from graphmem.llm import LLMUsage, constrained_schema, echo_errors, invoke_structured


def _insight(text: str):  # noqa: ANN202
    return tool_reply("InsightText", {"insight": text}, 40, 9)


def _ask_insight(replies: list, usage: LLMUsage) -> InsightText:
    return invoke_structured(
        ScriptedChatModel(responses=replies), InsightText,
        [("system", "You summarise an agent's trajectory into a short, actionable insight."),
         ("human", "Task: boil water\nSteps: fill kettle, switch on")],
        usage, "experience.intra_insight", json_schema=constrained_schema(InsightText,
                                                                          min_length=True))


def test_an_echoed_description_is_retried_and_counted_as_a_failure() -> None:
    usage = LLMUsage()
    out = _ask_insight([_insight("Concise, actionable guidance for the agent,"),
                        _insight("Fill the kettle before switching it on.")], usage)
    assert out.insight == "Fill the kettle before switching it on."
    op = usage.operations["experience.intra_insight"]
    assert (op.calls, op.failed, op.input_tokens, op.output_tokens) == (2, 1, 80, 18)


def test_echoes_twice_raise_and_nothing_is_returned() -> None:
    usage = LLMUsage()
    with pytest.raises(ControllerError, match="echoes the prompt or the schema") as err:
        _ask_insight([_insight("Concise, actionable guidance for the agent,"),
                      _insight("a short, actionable insight")], usage)
    assert "experience.intra_insight" in str(err.value)
    op = usage.operations["experience.intra_insight"]
    assert (op.calls, op.failed) == (2, 2)


def test_text_without_content_is_a_failure() -> None:
    usage = LLMUsage()
    with pytest.raises(ControllerError, match="has no content"):
        _ask_insight([_insight("..."), _insight(" - | - ")], usage)
    assert usage.operations["experience.intra_insight"].failed == 2


def _episodes() -> list[EpisodeInput]:
    from datetime import datetime, timezone

    when = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    return [EpisodeInput(conversation_id="c1", source_id=f"D1:{i}", speaker=speaker,
                         text=text, occurred_at=when, position=i, session="1")
            for i, (speaker, text) in enumerate(
                [("Caroline", "I went to a LGBTQ support group yesterday."),
                 ("Melanie", "I painted a sunrise over the lake last week.")], start=1)]


def _extraction(tag: str, fact: str):  # noqa: ANN202
    return tool_reply("EpisodeBatchExtraction", {"episodes": [
        {"source_id": "D1:1", "cues": [{"cue": "Caroline", "kind": "entity", "tag": tag},
                                       {"cue": "yesterday", "kind": "time",
                                        "tag": "when she went"}],
         "semantic_units": [{"text": fact, "kind": "fact", "cues": []}]},
        {"source_id": "D1:2", "cues": [{"cue": "Melanie", "kind": "entity",
                                        "tag": "painted a sunrise"}],
         "semantic_units": []}]}, 300, 120)


def test_cue_extraction_that_echoes_the_schema_stores_nothing() -> None:
    usage = LLMUsage()
    model = ScriptedChatModel(responses=[
        _extraction("entity|attribute|time|action|keyword", "Caroline attends a support group."),
        _extraction("went to support group", "The fact, one short sentence naming its subject."),
    ])
    with pytest.raises(ControllerError) as err:
        LLMCueExtractor(model, usage).extract(_episodes())
    assert "associative.extract" in str(err.value) and "schema's own description" in str(err.value)
    op = usage.operations["associative.extract"]
    assert (op.calls, op.failed) == (2, 2)


def test_real_content_passes_even_where_it_shares_words_with_the_prompt() -> None:
    usage = LLMUsage()
    # "went to support group" is the prompt's quoted example and true of this turn; "time" and
    # "entity" are allowed enum values, not echoes
    out = LLMCueExtractor(ScriptedChatModel(responses=[
        _extraction("went to support group", "Caroline attends an LGBTQ support group.")]),
        usage).extract(_episodes())
    assert [c.tag for c in out[0].cues] == ["went to support group", "when she went"]
    assert out[0].semantic_units[0].text == "Caroline attends an LGBTQ support group."
    op = usage.operations["associative.extract"]
    assert (op.calls, op.failed) == (1, 0)


def test_an_instruction_sentence_is_an_echo() -> None:
    system = ("You build an associative memory graph. Also list stable facts or preferences "
              "with their own cues and tags.")
    schema = extraction_json_schema(["D1:1"])
    reply = {"episodes": [{"source_id": "D1:1", "cues": [
        {"cue": "Caroline", "kind": "entity", "tag": "list stable facts or preferences"}],
        "semantic_units": [{"text": "You build an associative memory graph", "kind": "fact",
                            "cues": []}]}]}
    errors = echo_errors(reply, [schema], [system])
    assert len(errors) == 2 and all("prompt's instructions" in e for e in errors)
    # the same texts are content when the prompt does not say them
    assert echo_errors(reply, [schema], ["Extract cues."]) == []


class Verdict(BaseModel):
    """A reply model of this test only: its wording is nowhere in graphmem."""

    remark: str = Field(description="zebra crossings near the old harbour bridge")
    colour: str = Field(json_schema_extra={"enum": ["ochre", "teal", "umber"]})


def test_the_check_reads_the_schema_that_was_sent() -> None:
    schema = Verdict.model_json_schema()
    assert echo_errors({"remark": "Zebra crossings near the old harbour bridge.",
                        "colour": "ochre"}, [schema]) == [
        "'Zebra crossings near the old harbour bridge.' repeats the schema's own description"]
    assert echo_errors({"remark": "ochre / teal / umber", "colour": "teal"}, [schema]) == [
        "'ochre / teal / umber' repeats the schema's own description"]
    # a fragment of four words or more is an echo, a shorter one may be content
    assert echo_errors({"remark": "near the old harbour", "colour": "umber"}, [schema])
    assert echo_errors({"remark": "the harbour", "colour": "umber"}, [schema]) == []
    # under another schema the same text is content
    other = constrained_schema(Verdict)
    other["properties"]["remark"]["description"] = "what you saw"
    assert echo_errors({"remark": "Zebra crossings near the old harbour bridge.",
                        "colour": "ochre"}, [other]) == []


_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9)
_SEPARATORS = st.sampled_from([" ", ", ", " | ", "-", "; ", "  "])


@settings(max_examples=80, deadline=None)
@given(words=st.lists(_WORDS, min_size=1, max_size=8), seps=st.lists(_SEPARATORS, min_size=8,
                                                                       max_size=8),
       upper=st.booleans(), tail=st.sampled_from(["", ".", ",", " …", "!"]))
def test_any_description_comes_back_as_an_echo_whatever_its_case_and_punctuation(
        words: list[str], seps: list[str], upper: bool, tail: str) -> None:
    description = " ".join(words)
    schema = {"type": "object", "properties": {"text": {"type": "string",
                                                        "description": description}}}
    reply = "".join(w + s for w, s in zip(words, seps, strict=False)).strip(" ,|-;") + tail
    reply = reply.upper() if upper else reply.capitalize()
    assert echo_errors({"text": reply}, [schema]), (description, reply)


class SchemaShownModel(ScriptedChatModel):
    """A scripted model that, like the local one, decodes under the ``json_schema`` it is
    given: it records each schema and each prompt."""

    accepts_json_schema: ClassVar[bool] = True
    schemas: list = []
    prompts: list = []

    def with_structured_output(self, schema, *, include_raw=False,  # noqa: ANN001, ANN201
                               json_schema=None, **kwargs):  # noqa: ANN001, ANN003
        self.schemas.append(json_schema)
        return super().with_structured_output(schema, include_raw=include_raw, **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # noqa: ANN001, ANN201
        self.prompts.append(" ".join(str(m.content) for m in messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def _prose(node) -> list[str]:  # noqa: ANN001
    if isinstance(node, dict):
        return [v for k, v in node.items() if k in ("description", "title")
                and isinstance(v, str)] + [t for v in node.values() for t in _prose(v)]
    if isinstance(node, list):
        return [t for v in node for t in _prose(v)]
    return []


def test_the_retry_after_an_echo_shows_the_schema_without_its_prose() -> None:
    model = SchemaShownModel(responses=[_insight("Concise, actionable guidance for the agent."),
                                        _insight("Fill the kettle first.")], schemas=[],
                             prompts=[])
    schema = constrained_schema(InsightText, min_length=True)
    usage = LLMUsage()
    out = invoke_structured(model, InsightText, [("system", "Summarise the task."),
                                                 ("human", "Task: boil water")],
                            usage, "experience.intra_insight", json_schema=schema)
    assert out.insight == "Fill the kettle first."
    first, retry = model.schemas
    assert "concise, actionable guidance for the agent" in _prose(first)
    assert _prose(retry) == []  # same rules, no words to copy
    assert retry["properties"]["insight"]["minLength"] == 1 and retry["required"] == ["insight"]
    assert "Concise" not in model.prompts[1] and "instead of content" in model.prompts[1]
    assert usage.operations["experience.intra_insight"].failed == 1

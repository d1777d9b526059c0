"""Heuristic and LLM cue/tag extraction (MRAgent F_cue / F_tag, section 5)."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

import pytest
from fakes import ScriptedChatModel, tool_reply

from graphmem.associative.construction import episodes_of
from graphmem.associative.extraction import HeuristicCueExtractor, normalise_cue
from graphmem.associative.llm_extraction import LLMCueExtractor
from graphmem.associative.models import EpisodeInput
from graphmem.errors import ControllerError, EmptyTextError
from graphmem.llm import LLMUsage


def _episode(text: str, speaker: str = "Caroline", sid: str = "D1:3") -> EpisodeInput:
    return EpisodeInput(conversation_id="conv-x", source_id=sid, speaker=speaker, text=text,
                        occurred_at=datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc), position=0)


@pytest.fixture(scope="module")
def extractor() -> HeuristicCueExtractor:
    return HeuristicCueExtractor()


def test_normalise_cue() -> None:
    assert normalise_cue("  The LGBTQ Support-Group! ") == "lgbtq support-group"
    assert normalise_cue("Caroline's") == "caroline"
    assert normalise_cue("my favourite  book") == "favourite book"
    assert normalise_cue("?!") == ""


def test_heuristic_cues_of_every_kind_with_tags(extractor: HeuristicCueExtractor) -> None:
    ep = _episode("I went to a LGBTQ support group yesterday and it was so powerful. "
                  "My favorite book is Charlotte's Web. I moved from Sweden in June 2019.")
    out = extractor.extract_one(ep, ["Caroline", "Melanie"])
    by_kind: dict[str, set[str]] = {}
    for link in out.cues:
        by_kind.setdefault(link.kind, set()).add(link.cue)
    assert {"caroline", "lgbtq", "sweden"} <= by_kind["entity"]
    assert {"yesterday", "june 2019", "may 2023"} <= by_kind["time"]
    assert "went" in by_kind["action"] and "moved" in by_kind["action"]
    assert "favourite book" in by_kind["attribute"]
    assert "lgbtq support group" in by_kind["keyword"]
    tags = {link.cue: link.tag for link in out.cues}
    assert tags["caroline"].startswith("who: went")
    assert tags["yesterday"].startswith("when: ")
    assert tags["lgbtq support group"].startswith("about: caroline went")
    assert len({link.cue for link in out.cues}) == len(out.cues)  # one link per cue


def test_heuristic_semantic_units(extractor: HeuristicCueExtractor) -> None:
    out = extractor.extract_one(_episode("I love painting and I'm a big fan of Van Gogh.",
                                         speaker="Melanie"), ["Melanie"])
    texts = [f.text for f in out.semantic_units]
    assert "Melanie loves painting" in texts
    assert "Melanie is a big fan of Van Gogh" in texts
    pref = next(f for f in out.semantic_units if f.kind == "preference")
    assert pref.cues[0].cue == "melanie" and pref.cues[0].tag == "preference: loves painting"


def test_sentence_initial_words_are_not_entities(extractor: HeuristicCueExtractor) -> None:
    out = extractor.extract_one(_episode("Hey Mel! Researching adoption agencies today."), ["Melanie"])
    entities = {c.cue for c in out.cues if c.kind == "entity"}
    assert entities == {"caroline", "mel"}


def test_question_cues(extractor: HeuristicCueExtractor) -> None:
    cues = [c.cue for c in extractor.question_cues("When did Caroline go to the LGBTQ support group?")]
    assert cues[:2] == ["caroline", "lgbtq"]
    assert "lgbtq support group" in cues and "support" in cues


def test_empty_turn_is_refused_naming_it() -> None:
    turn = SimpleNamespace(source_id="D1:9", speaker="Ann", text="  ",
                           timestamp=datetime(2023, 5, 8, tzinfo=timezone.utc), session="s1")
    conv = SimpleNamespace(id="conv-x", turns=[turn])
    with pytest.raises(EmptyTextError, match=r"conversation 'conv-x' turn 0 \('D1:9'\): text"):
        episodes_of(conv)


def test_llm_extractor_fills_the_same_model() -> None:
    reply = tool_reply("EpisodeBatchExtraction", {"episodes": [
        {"source_id": "D1:3", "cues": [{"cue": "Caroline", "kind": "entity",
                                         "tag": "went to support group"}],
         "semantic_units": [{"text": "Caroline is transgender", "kind": "fact", "cues": []}]},
    ]})
    usage = LLMUsage()
    out = LLMCueExtractor(ScriptedChatModel(responses=[reply]), usage).extract(
        [_episode("I went to a support group."), _episode("Nice!", "Melanie", "D1:4")])
    assert out[0].cues[0].cue == "caroline" and out[0].cues[0].tag == "went to support group"
    assert out[0].semantic_units[0].text == "Caroline is transgender"
    assert out[1].cues == []
    assert usage.operations["associative.extract"].calls == 1
    assert usage.operations["associative.extract"].input_tokens == 5


def test_llm_extractor_wrong_ids_twice_is_a_controller_error() -> None:
    bad = tool_reply("EpisodeBatchExtraction", {"episodes": [{"source_id": "D9:9", "cues": []}]})
    usage = LLMUsage()
    with pytest.raises(ControllerError, match="source_id: .D9:9. is not one of"):
        LLMCueExtractor(ScriptedChatModel(responses=[bad, bad]), usage).extract([_episode("Hi there")])
    assert usage.operations["associative.extract"].calls == 2

"""``F_cue`` / ``F_tag`` by a langchain-core chat model (MRAgent, seed 003, section 5): the same
:class:`~graphmem.associative.models.EpisodeExtraction` as the heuristic extractor, through
:func:`graphmem.llm.invoke_structured` (one retry, then ``ControllerError``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from graphmem.associative.extraction import normalise_cue
from graphmem.associative.models import CueLink, EpisodeExtraction, EpisodeInput, SemanticFact
from graphmem.errors import ControllerError
from graphmem.llm import LLMUsage, constrained_schema, invoke_structured
from graphmem.timeparse import to_utc

logger = logging.getLogger(__name__)


class _LLMEpisodeItem(BaseModel):
    source_id: str = Field(description="the episode's source id, exactly as given")
    cues: list[CueLink] = Field(
        default_factory=list,
        description="3-10 fine-grained cues (entity, attribute, time, action, keyword), each with "
        "a short tag (2-6 words) saying how the cue leads to this episode",
    )
    semantic_units: list[SemanticFact] = Field(
        default_factory=list,
        description="stable facts or preferences stated in the episode (may be empty)",
    )


class EpisodeBatchExtraction(BaseModel):
    """Structured output of the LLM extractor: one item per episode of the batch."""

    episodes: list[_LLMEpisodeItem]


_SYSTEM = (
    "You build an associative memory graph (cue -> tag -> content). For every episode, list "
    "fine-grained cues: entities (people, places, organisations), attributes, times, actions and "
    "key words; for each cue give a short tag (2-6 words) saying how the cue leads to the "
    "episode, e.g. cue 'Caroline', tag 'went to support group'. Also list stable facts or "
    "preferences (one short sentence naming the subject) with their own cues and tags. Return "
    "exactly one item per episode, using the given source ids."
)


#: Most cues per episode and facts per episode a reply may hold (bounds the reply length).
MAX_CUES, MAX_FACTS = 10, 5


def extraction_json_schema(source_ids: Sequence[str]) -> dict[str, Any]:
    """The call-specific JSON schema of one cue-extraction call over episodes ``source_ids``
    (non-empty): source ids of this batch only, at most one item per episode, non-blank cues,
    tags and facts, at most :data:`MAX_CUES` cues and :data:`MAX_FACTS` facts per episode."""
    return constrained_schema(
        EpisodeBatchExtraction, enums={"episodes.source_id": list(source_ids)}, min_length=True,
        max_items={"episodes": len(source_ids), "episodes.cues": MAX_CUES,
                   "episodes.semantic_units": MAX_FACTS,
                   "episodes.semantic_units.cues": MAX_CUES})


class LLMCueExtractor:
    """``F_cue`` / ``F_tag`` by a langchain-core chat model with structured output (MRAgent
    section 5). Episodes go in batches; each batch is one call (one retry on invalid output).

    Raises (from :meth:`extract`):
        ControllerError: invalid output after the retry (source ids outside the batch, blank
            cues or tags break the call's schema); nothing is written by the caller then.
    """

    name = "llm"

    def __init__(self, llm: Any, usage: LLMUsage | None = None, batch_size: int = 8):
        self.llm = llm
        self.usage = usage if usage is not None else LLMUsage()
        self.batch_size = batch_size

    def _batch(self, batch: Sequence[EpisodeInput]) -> list[EpisodeExtraction]:
        """One call (plus one retry) for ``batch`` under :func:`extraction_json_schema`."""
        lines = [f"[{e.source_id}] ({to_utc(e.occurred_at):%d %B %Y}) {e.content}" for e in batch]
        messages = [("system", _SYSTEM), ("human", "Episodes:\n" + "\n".join(lines))]
        wanted = [e.source_id for e in batch]
        result = invoke_structured(self.llm, EpisodeBatchExtraction, messages, self.usage,
                                   "associative.extract",
                                   json_schema=extraction_json_schema(wanted))
        by_id = {item.source_id: item for item in result.episodes}
        unknown = set(by_id) - set(wanted)
        if unknown:  # the schema rules this out; kept for models that ignore it
            raise ControllerError(f"associative.extract: unknown source ids {sorted(unknown)} "
                                  f"(batch {wanted})")
        out = []
        for sid in wanted:
            item = by_id.get(sid)
            cues = [c.model_copy(update={"cue": normalise_cue(c.cue)})
                    for c in (item.cues if item else []) if normalise_cue(c.cue)]
            out.append(EpisodeExtraction(cues=cues,
                                         semantic_units=item.semantic_units if item else []))
        return out

    def extract(self, episodes: Sequence[EpisodeInput]) -> list[EpisodeExtraction]:
        """One :class:`EpisodeExtraction` per episode, in order."""
        out: list[EpisodeExtraction] = []
        for start in range(0, len(episodes), self.batch_size):
            out.extend(self._batch(episodes[start:start + self.batch_size]))
        return out

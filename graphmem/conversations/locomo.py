"""LoCoMo reader (Maharana et al., ACL 2024): samples with sessions of turns and QA with evidence\n``dia_id``s."""

from __future__ import annotations

import logging
import re
from datetime import timezone, tzinfo
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from pydantic import ValidationError as PydanticValidationError

from graphmem.conversations.files import first_error, load_json
from graphmem.conversations.models import Conversation, QAItem, Turn, checked_key
from graphmem.errors import InputFormatError, InvalidInputError
from graphmem.timeparse import parse_timestamp

logger = logging.getLogger(__name__)

#: ``session_<n>`` keys; a number of more than nine digits is not a session key.
_SESSION_KEY = re.compile(r"^session_(\d{1,9})$")


class _LocomoTurn(BaseModel):
    speaker: str = Field(min_length=1)
    dia_id: str = Field(min_length=1)
    text: str
    blip_caption: str | None = None


class _LocomoSample(BaseModel):
    sample_id: str | None = None
    conversation: dict[str, Any]
    qa: list[QAItem] = Field(default_factory=list)


def read_locomo(path: str | Path, default_tz: tzinfo = timezone.utc) -> list[Conversation]:
    """Read a LoCoMo JSON file (list of samples, or one sample) into conversations with QA.

    Turns are in session order then turn order; each turn's timestamp is its session's
    ``session_N_date_time`` (LoCoMo's dates carry no zone: they are taken as ``default_tz``; a
    zone written in the value is honoured). Turns with empty text and no image caption are
    skipped.

    Raises:
        InputFormatError: invalid JSON (file and line), a sample/turn missing fields, a session
            date that is not a date (naming ``session_N_date_time`` and the value), an id longer
            than ``MAX_KEY_BYTES`` (file and item path, e.g. ``sample 0 session_3 turn 5``).
    """
    path = Path(path)
    data = load_json(path)
    samples = data if isinstance(data, list) else [data]
    out = []
    for si, raw in enumerate(samples):
        where = f"{path}: sample {si}"
        try:
            sample = _LocomoSample.model_validate(raw)
        except PydanticValidationError as exc:
            raise InputFormatError(f"{where}: {first_error(exc)}") from exc
        conv = sample.conversation
        numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.match(k)))
        turns: list[Turn] = []
        for n in numbers:
            key = f"session_{n}"
            stamp_raw = conv.get(f"{key}_date_time")
            try:
                stamp = parse_timestamp(stamp_raw, field=f"{key}_date_time", default_tz=default_tz)
            except InvalidInputError as exc:
                raise InputFormatError(f"{where} {exc}") from None
            if not isinstance(conv[key], list):
                raise InputFormatError(f"{where} {key}: expected a list of turns")
            for ti, raw_turn in enumerate(conv[key]):
                try:
                    lt = _LocomoTurn.model_validate(raw_turn)
                except PydanticValidationError as exc:
                    raise InputFormatError(f"{where} {key} turn {ti}: {first_error(exc)}") from exc
                text = lt.text.strip()
                if lt.blip_caption:
                    text = f"{text} [shares {lt.blip_caption}]".strip()
                if not text:
                    continue
                checked_key(f"{where} {key} turn {ti}", "turn source_id (dia_id)", lt.dia_id)
                turns.append(Turn(source_id=lt.dia_id, speaker=lt.speaker, text=text,
                                  timestamp=stamp, session=key, position=len(turns)))
        speakers = [conv[k] for k in ("speaker_a", "speaker_b") if isinstance(conv.get(k), str)]
        speakers = speakers or list(dict.fromkeys(t.speaker for t in turns))
        conv_id = checked_key(where, "conversation id (sample_id)",
                              sample.sample_id or f"{path.stem}-{si}")
        out.append(Conversation(id=conv_id, turns=turns, speakers=speakers, qa=sample.qa))
    return out

"""Conversation input shared by the memories: pydantic models and readers for four formats.

Every :class:`Turn` keeps its ``source_id`` (LoCoMo's ``dia_id``, a generic message's ``id``, a
MemConflict fact's ``S<session>:<kind>:<n>``) so anything built from it can be scored against
evidence lists.

Formats (``read_conversations(path, fmt="auto")`` picks one by content):

- **locomo** — LoCoMo (Maharana et al., ACL 2024): a JSON list of samples, each with
  ``conversation`` (``speaker_a``, ``speaker_b``, ``session_N`` turn lists with ``speaker``,
  ``dia_id``, ``text`` and optional ``blip_caption``; ``session_N_date_time`` like
  ``"1:56 pm on 8 May, 2023"``) and ``qa`` (``question``, ``answer``, ``evidence`` dia_ids,
  ``category``). A shared image's caption is appended to the turn text as ``[shares <caption>]``.
- **generic** — graphmem's own documented format. Either a JSON file holding one conversation
  ``{"id": "c1", "messages": [...]}``, a list of such conversations, or a bare list of messages;
  or a JSONL file with one message per line. A message is::

      {"speaker": "Ann", "text": "I moved to Lyon.", "timestamp": "2024-03-01T10:00:00+01:00",
       "id": "m1", "session": "s1", "conversation": "c1"}

  ``speaker``, ``text`` and ``timestamp`` (read by :func:`graphmem.timeparse.parse_timestamp`:
  ISO-8601 or a written date with day, month and year and an optional zone such as ``PST``) are
  required; ``id`` defaults to ``"<conversation>:<position>"``, ``session`` to ``"default"``,
  ``conversation`` (JSONL only) to the file's stem.
- **memconflict** — MemConflict (2026) ``Step4_1.jsonl``: one persona per line with a dated
  ``Full_Session_Chain``. Each session becomes turns by field mapping: the ``Session_Outline``,
  one turn per revealed or updated attribute, per static-conflict claim, per conditional
  preference rule and per other person's (distractor) fact. Structured values are kept in
  ``Turn.meta`` (``kind``, ``attribute``, ``value``, ``condition``, ``role``, ``person``,
  ``conflict_id``) for probes.
- **beam** — BEAM (Tavakoli et al.): a folder holding ``chat.json`` (batches of user-assistant
  messages ``{"role", "id", "content"}``, one message per batch carrying its ``time_anchor``
  such as ``"January-05-2024"``) and ``probing_questions.json``, or a folder of such chat
  folders (read in natural order, ``2`` before ``10``). A message becomes a turn (``source_id``
  its ``id``, ``speaker`` its ``role``, ``session`` ``batch_<n>``); a message longer than
  ``MAX_TEXT_CHARS`` is cut (``Turn.meta["clipped_from"]``); a probing question becomes a
  :class:`QAItem` whose ``category`` is its question type and ``evidence`` its flattened
  ``source_chat_ids`` (see :mod:`graphmem.conversations.beam`).

Timestamps are timezone-aware: a zone in the value is honoured (``"2024-03-01 10:00 PST"`` is
18:00 UTC); a value without one is taken as ``default_tz`` (UTC unless given). A value that is not
a date (``"session one"``) is refused naming the field (``session_2_date_time``, the message's
``timestamp``, the session's ``Date``) and the value. Conversation ids, turn source ids and
session keys pass :func:`graphmem.names.check_key` (at most ``MAX_KEY_BYTES`` UTF-8 bytes);
:func:`read_conversations` also checks every turn with
:func:`~graphmem.conversations.models.validate_conversation` (speakers are keys too, texts at most
``MAX_TEXT_CHARS`` characters), the same rules agent messages and every memory's ingest apply.

Raises (all readers): :class:`~graphmem.errors.InputFormatError` naming the file and the line
(JSON decode errors and JSONL lines) or the item path (schema errors inside a JSON file).
"""

from graphmem.conversations.beam import read_beam
from graphmem.conversations.generic import read_generic
from graphmem.conversations.io import detect_format, read_conversations
from graphmem.conversations.locomo import read_locomo
from graphmem.conversations.memconflict import read_memconflict
from graphmem.conversations.models import (
    Conversation,
    Format,
    QAItem,
    StoredMessage,
    Turn,
    check_turn_fields,
    validate_conversation,
)

__all__ = [
    "Conversation",
    "Format",
    "QAItem",
    "StoredMessage",
    "Turn",
    "check_turn_fields",
    "detect_format",
    "read_beam",
    "read_conversations",
    "read_generic",
    "read_locomo",
    "read_memconflict",
    "validate_conversation",
]

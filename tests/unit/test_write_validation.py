"""The write path's validation without a database: one set of rules for every message field,
exact limits, typed errors naming the message index and field (never pydantic's), trajectory
limits, file ingest with the same rules, and the MCP server's strict tool arguments."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage

from graphmem.agent.messages import Message, validate_messages
from graphmem.agent.writes import _trajectory, task_key
from graphmem.associative.construction import episodes_of
from graphmem.conversations import Conversation, Turn, read_conversations, validate_conversation
from graphmem.errors import (
    DatabaseError,
    EmptyTextError,
    GraphmemError,
    InputFormatError,
    InvalidInputError,
    PartialWriteError,
    TrajectoryError,
)
from graphmem.experience.trajectories import as_trajectory
from graphmem.insight.memory import parse_feedback
from graphmem.mcp_server import check_arguments
from graphmem.names import MAX_KEY_BYTES
from graphmem.retrieval import unit_rows
from graphmem.validation import MAX_ACTION_CHARS, MAX_TEXT_CHARS, clip_derived

CJK_ID = "中" * 2800  # 8 400 UTF-8 bytes: more than MAX_KEY_BYTES, under Neo4j's index limit
LONG_KEY = "k" * (MAX_KEY_BYTES + 1)

# (value, is it valid) per field; the giant strings are built once.
ROLES = [("user", True), ("Ann", True), ("r" * MAX_KEY_BYTES, True), ("", False), ("  ", False),
         (LONG_KEY, False), ("中" * 342, False), ("\ud800", False)]
CONTENTS = [("hello", True), ("x" * MAX_TEXT_CHARS, True), ("", False), (" \n", False),
            ("x" * (MAX_TEXT_CHARS + 1), False), ("a\ud800b", False)]
IDS = [(None, True), ("m1", True), ("m2", True), ("i" * MAX_KEY_BYTES, True), (" ", False),
       ("", False), (CJK_ID, False), (LONG_KEY, False)]


def _error_fields(message: str) -> tuple[int, str]:
    match = re.match(r"message (\d+): (role|content|id)\b", message)
    assert match, message
    return int(match.group(1)), match.group(2)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(range(len(ROLES))), st.sampled_from(range(len(CONTENTS))),
                          st.sampled_from(range(len(IDS)))), min_size=1, max_size=5))
def test_messages_validate_all_or_name_the_first_bad_index_and_field(choices) -> None:
    raw = [{"role": ROLES[r][0], "content": CONTENTS[c][0], "id": IDS[i][0]}
           for r, c, i in choices]
    bad: list[set[str]] = []
    seen: set[str] = set()
    for r, c, i in choices:
        fields = {name for name, ok in (("role", ROLES[r][1]), ("content", CONTENTS[c][1]),
                                        ("id", IDS[i][1])) if not ok}
        if IDS[i][0] is not None and IDS[i][1]:
            if IDS[i][0] in seen:
                fields.add("id")
            seen.add(IDS[i][0])
        bad.append(fields)
    if not any(bad):
        parsed = validate_messages(raw, "c1", "s1")
        assert [m.content for m in parsed] == [m["content"] for m in raw]
        assert [m.id for m in parsed] == [m["id"] for m in raw]
        return
    first = next(i for i, fields in enumerate(bad) if fields)
    with pytest.raises(InvalidInputError) as info:
        validate_messages(raw, "c1", "s1")
    index, field = _error_fields(str(info.value))
    assert index == first and field in bad[first], (str(info.value)[:200], bad[first])
    assert "pydantic" not in str(info.value)
    if bad[first] == {"content"} and not CONTENTS[choices[first][1]][0].strip():
        assert isinstance(info.value, EmptyTextError)


def test_content_limit_is_exact() -> None:
    [ok] = validate_messages([{"role": "u", "content": "y" * MAX_TEXT_CHARS}])
    assert len(ok.content) == MAX_TEXT_CHARS
    with pytest.raises(InvalidInputError,
                       match=rf"^message 0: content has {MAX_TEXT_CHARS + 1} characters, more "
                             rf"than the limit MAX_TEXT_CHARS={MAX_TEXT_CHARS}"):
        validate_messages([{"role": "u", "content": "y" * (MAX_TEXT_CHARS + 1)}])


def test_key_limits_are_exact_in_bytes() -> None:
    three_byte = "中" * (MAX_KEY_BYTES // 3)  # 1 023 bytes
    [ok] = validate_messages([{"role": three_byte, "content": "hi", "id": "i" * MAX_KEY_BYTES}],
                             conversation_id="c" * MAX_KEY_BYTES, session_id=three_byte)
    assert ok.role == three_byte
    with pytest.raises(InvalidInputError, match=r"^message 0: id is 8400 UTF-8 bytes"):
        validate_messages([{"role": "u", "content": "hi", "id": CJK_ID}])
    with pytest.raises(InvalidInputError, match=r"^conversation_id is 1025 UTF-8 bytes"):
        validate_messages([{"role": "u", "content": "hi"}], conversation_id=LONG_KEY)
    with pytest.raises(InvalidInputError, match=r"^session_id must be a non-empty string"):
        validate_messages([{"role": "u", "content": "hi"}], session_id="  ")


def test_message_objects_and_langchain_messages_get_the_same_checks() -> None:
    with pytest.raises(InvalidInputError, match=r"^message 1: role is 1025 UTF-8 bytes"):
        validate_messages([Message(role="u", content="a"), Message(role=LONG_KEY, content="b")])
    with pytest.raises(InvalidInputError, match=r"^message 0: id must be a non-empty string"):
        validate_messages([HumanMessage("hello", id="  ")])
    with pytest.raises(InvalidInputError, match=r"^message 1: id 'm1' is also message 0's"):
        validate_messages([{"role": "u", "content": "a", "id": "m1"},
                           {"role": "u", "content": "b", "id": "m1"}])
    with pytest.raises(InvalidInputError, match=r"^message 0: .*timestamp") as info:
        validate_messages([{"role": "u", "content": "a", "timestamp": "not a date"}])
    assert "errors.pydantic.dev" not in str(info.value)


def test_derived_prefix_and_window_are_not_checked_against_the_content_limit() -> None:
    stamp = datetime(2024, 1, 1, tzinfo=timezone.utc)
    turns = [Turn(source_id=f"t{i}", speaker="speaker", text="w " * (MAX_TEXT_CHARS // 2 - 1) + "ww",
                  timestamp=stamp, position=i) for i in range(3)]
    conv = validate_conversation(Conversation(id="c", turns=turns, speakers=["speaker"]))
    [episode, *_] = episodes_of(conv)
    assert len(episode.content) == MAX_TEXT_CHARS + len("speaker: ")
    rows = unit_rows(turns, None, namespace="ns", ids=["a", "b", "c"])
    assert [len(r["window_text"]) for r in rows] == [MAX_TEXT_CHARS] * 3
    assert rows[0]["window_text"].startswith("speaker: w w")
    assert clip_derived("short") == "short"


def test_conversation_checks_name_the_turn_and_field(tmp_path) -> None:
    stamp = datetime(2024, 1, 1, tzinfo=timezone.utc)
    conv = Conversation(id="c", speakers=["a"], turns=[
        Turn(source_id="t0", speaker="a", text="fine", timestamp=stamp),
        Turn(source_id=CJK_ID, speaker="a", text="fine", timestamp=stamp)])
    with pytest.raises(InvalidInputError, match=r"^conversation 'c' turn 1: source_id is 8400"):
        validate_conversation(conv)
    with pytest.raises(InvalidInputError, match=r"turn 1 \('中+'\): source_id is 8400"):
        episodes_of(conv)
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"speaker": LONG_KEY, "text": "hi",
                                "timestamp": "2024-01-01T00:00:00Z", "id": "m1"}) + "\n",
                    encoding="utf-8")
    with pytest.raises(InputFormatError, match=rf"^{re.escape(str(path))}: conversation 'chat' "
                                               r"turn 0: speaker is 1025 UTF-8 bytes"):
        read_conversations(path)


def test_feedback_trajectories_raise_typed_errors_naming_the_value() -> None:
    with pytest.raises(TrajectoryError, match=r"^trajectory: reward: Input should be less") as info:
        _trajectory("task", "resolved", {"steps": [{"action": "go", "observation": ""}],
                                         "reward": 7})
    assert "errors.pydantic.dev" not in str(info.value)
    with pytest.raises(TrajectoryError, match=r"steps\.0\.action: action has 100001 characters, "
                                              r"more than the limit MAX_ACTION_CHARS=100000"):
        _trajectory("task", "failed", ["a" * (MAX_ACTION_CHARS + 1)])
    ok = _trajectory("task", "failed", ["a" * MAX_ACTION_CHARS, {"action": "b",
                                                                 "observation": None}])
    assert [len(s.action) for s in ok.steps] == [MAX_ACTION_CHARS, 1] and ok.reward == 0.0
    with pytest.raises(TrajectoryError, match=r"steps\.0\.observation: observation has 100001"):
        _trajectory("task", "failed", [{"action": "a", "observation": "o" * (MAX_TEXT_CHARS + 1)}])
    with pytest.raises(TrajectoryError, match=r"step 0: needs a non-empty action"):
        _trajectory("task", "failed", [{"action": 5}])
    with pytest.raises(TrajectoryError, match=r"observation has 100001"):
        as_trajectory({"task_id": "t", "query": "q", "reward": 1.0,
                       "steps": [{"action": "a", "observation": "o" * (MAX_TEXT_CHARS + 1)}]})
    long_task = "t" * (MAX_KEY_BYTES + 1)
    built = _trajectory(long_task, "resolved", ["look"])
    assert built.query == long_task and built.task_id == task_key(long_task)
    assert re.fullmatch(r"task:[0-9a-f]{40}", built.task_id) and task_key("short") == "short"


def test_insight_feedback_step_limit() -> None:
    assert parse_feedback({"query": "q", "status": "failed",
                           "trajectory": ["a" * MAX_ACTION_CHARS]}).trajectory
    with pytest.raises(TrajectoryError, match="MAX_ACTION_CHARS=100000"):
        parse_feedback({"query": "q", "status": "failed",
                        "trajectory": ["a" * (MAX_ACTION_CHARS + 1)]})


def test_partial_write_error_is_a_database_error_carrying_what_to_resend() -> None:
    messages = [Message(role="u", content="a", id="m1")]
    err = PartialWriteError("x", stored=["state"], missing=["associative"], messages=messages,
                            conversation_id="c", session_id=None)
    assert isinstance(err, DatabaseError) and isinstance(err, GraphmemError)
    assert (err.stored, err.missing, err.failed, err.messages) == (
        ["state"], ["associative"], "associative", messages)
    import graphmem.errors as errors

    assert "PartialWriteError" in errors.__doc__


SCHEMA = {"properties": {"query": {"type": "string"},
                         "k": {"default": 5, "type": "integer"},
                         "tag": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
          "required": ["query"], "type": "object"}


@pytest.mark.parametrize(("arguments", "message"), [
    ({"query": "q", "k": True}, r"^recall: argument 'k' must be integer, got True$"),
    ({"query": "q", "k": "5"}, r"^recall: argument 'k' must be integer, got '5'$"),
    ({"query": "q", "kk": 3}, r"^recall: unknown argument\(s\) 'kk'; recall takes query, k, tag$"),
    ({"k": 3}, r"^recall: 'query' is a required property$"),
    ({"query": "q", "tag": 4}, r"^recall: argument 'tag' must be string or null, got 4$"),
])
def test_mcp_arguments_are_strict(arguments, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        check_arguments("recall", arguments, SCHEMA)


def test_mcp_valid_arguments_pass() -> None:
    check_arguments("recall", {"query": "q", "k": 3, "tag": None}, SCHEMA)
    check_arguments("recall", {"query": "q"}, SCHEMA)


def test_langchain_tools_refuse_bad_arguments_as_graphmem_errors() -> None:
    from graphmem.langchain.tools import memory_tools

    remember, recall = memory_tools(object())  # refused by the schema before any memory call
    assert remember.invoke({"content": ""}) == (
        "InvalidInputError: content: String should have at least 1 character (got '')")
    assert recall.invoke({"query": "cats", "k": 0}) == (
        "InvalidInputError: k: Input should be greater than or equal to 1 (got 0)")


def test_a_datetime_timestamp_with_an_offset_neo4j_cannot_store_is_refused_at_validation():
    from datetime import datetime, timedelta, timezone

    from graphmem.agent.messages import validate_messages

    far = datetime(2024, 1, 1, tzinfo=timezone(timedelta(hours=20)))
    with pytest.raises(InvalidInputError, match=r"^message 1: timestamp '2024-01-01T00:00:00\+20:00'"
                                                r".*offset \+20:00 is outside the valid range"):
        validate_messages([{"role": "Ann", "content": "hi"},
                           {"role": "Ann", "content": "late", "timestamp": far}], "c1", None)
    near = datetime(2024, 1, 1, tzinfo=timezone(timedelta(hours=14)))
    [message] = validate_messages([{"role": "Ann", "content": "hi", "timestamp": near}], "c1", None)
    assert message.timestamp == near and message.timestamp.utcoffset() == timedelta(hours=14)

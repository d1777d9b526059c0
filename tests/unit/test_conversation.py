"""Conversation readers: LoCoMo, generic JSON/JSONL, MemConflict; malformed input errors."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from graphmem.conversations import (
    Conversation,
    detect_format,
    read_conversations,
    read_generic,
    read_locomo,
    read_memconflict,
)
from graphmem.datasets import bundled_path
from graphmem.errors import InputFormatError
from graphmem.timeparse import parse_timestamp



def _locomo_sample() -> dict:
    return {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_2_date_time": "10:37 am on 27 June, 2023",
            "session_2": [{"speaker": "Bob", "dia_id": "D2:1", "text": "Later."}],
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I went to a support group."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Look!", "blip_caption": "a sunset"},
            ],
        },
        "qa": [{"question": "When?", "answer": 2023, "evidence": ["D1:1"], "category": 2},
               {"question": "Adv?", "adversarial_answer": "no", "evidence": ["D2:1"], "category": 5}],
    }


def test_locomo_sessions_in_order_with_dates_and_qa(tmp_path: Path) -> None:
    path = tmp_path / "l.json"
    path.write_text(json.dumps([_locomo_sample()]))
    [conv] = read_locomo(path)
    assert conv.id == "conv-x"
    assert conv.speakers == ["Ann", "Bob"]
    assert [t.source_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1"]
    assert [t.position for t in conv.turns] == [0, 1, 2]
    assert conv.turns[0].timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert conv.turns[2].timestamp == datetime(2023, 6, 27, 10, 37, tzinfo=timezone.utc)
    assert conv.turns[1].text == "Look! [shares a sunset]"
    assert conv.sessions == ["session_1", "session_2"]
    assert conv.qa[0].answer == "2023" and conv.qa[0].evidence == ["D1:1"]
    assert conv.qa[1].answer is None and conv.qa[1].adversarial_answer == "no"
    assert detect_format(path) == "locomo"
    assert conv.turn("D2:1").speaker == "Bob"


def test_locomo_bad_date_names_file_and_session(tmp_path: Path) -> None:
    sample = _locomo_sample()
    sample["conversation"]["session_1_date_time"] = "not a date at all"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([sample]))
    with pytest.raises(InputFormatError, match=r"bad\.json: sample 0 session_1_date_time"):
        read_locomo(path)


def test_locomo_turn_without_dia_id_names_turn(tmp_path: Path) -> None:
    sample = _locomo_sample()
    del sample["conversation"]["session_1"][1]["dia_id"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([sample]))
    with pytest.raises(InputFormatError, match=r"sample 0 session_1 turn 1: dia_id"):
        read_locomo(path)


def test_invalid_json_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('[\n{"a": 1},\n{oops}\n]')
    with pytest.raises(InputFormatError, match=r"broken\.json: line 3"):
        read_conversations(path, "locomo")


def test_generic_jsonl_groups_by_conversation(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    lines = [
        {"speaker": "Ann", "text": "I live in Paris.", "timestamp": "2024-01-01T10:00:00Z", "id": "m1"},
        {"speaker": "Ann", "text": "I moved to Lyon.", "timestamp": "2024-03-01 09:00",
         "conversation": "other"},
        {"speaker": "Bob", "text": "Nice.", "timestamp": "2024-01-02T10:00:00+02:00", "session": 2},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    convs = {c.id: c for c in read_conversations(path)}
    assert set(convs) == {"chat", "other"}
    chat = convs["chat"]
    assert [t.source_id for t in chat.turns] == ["m1", "chat:1"]
    assert chat.turns[1].session == "2"
    assert chat.turns[1].timestamp.utcoffset().total_seconds() == 7200
    assert convs["other"].turns[0].timestamp.tzinfo is not None
    assert chat.speakers == ["Ann", "Bob"]


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ('{"speaker": "A", "text": "x"}', "line 2: timestamp"),
        ('{"speaker": "A", "text": "  ", "timestamp": "2024-01-01"}', "line 2: text"),
        ('{"speaker": "A", "text": "x", "timestamp": "yesterday-ish?"}', "line 2: timestamp"),
        ("{not json", "line 2: invalid JSON"),
    ],
)
def test_generic_jsonl_bad_line(tmp_path: Path, line: str, match: str) -> None:
    path = tmp_path / "c.jsonl"
    ok = '{"speaker": "A", "text": "fine", "timestamp": "2024-01-01"}'
    path.write_text(ok + "\n" + line + "\n")
    with pytest.raises(InputFormatError, match=rf"c\.jsonl: {match}"):
        read_generic(path)


def test_generic_json_conversation_objects_and_duplicate_ids(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    msgs = [{"speaker": "A", "text": "one", "timestamp": "2024-01-01", "id": "x"},
            {"speaker": "B", "text": "two", "timestamp": "2024-01-02", "id": "y"}]
    path.write_text(json.dumps({"id": "c9", "messages": msgs}))
    [conv] = read_generic(path)
    assert isinstance(conv, Conversation) and conv.id == "c9"
    assert [t.text for t in conv.turns] == ["one", "two"]
    msgs[1]["id"] = "x"
    path.write_text(json.dumps([{"id": "c9", "messages": msgs}]))
    with pytest.raises(InputFormatError, match="duplicate message id 'x'"):
        read_generic(path)
    path.write_text(json.dumps({"id": "c9", "messages": [{"speaker": "A"}]}))
    with pytest.raises(InputFormatError, match=r"conversation 0 message 0: text"):
        read_generic(path)


def test_parse_timestamp_naive_gets_default_tz() -> None:
    assert parse_timestamp("8 May 2023", field="f", default_tz=timezone.utc).tzinfo == timezone.utc
    with pytest.raises(ValueError):
        parse_timestamp("", field="f")


def _mc_record() -> dict:
    return {
        "ID": "p1",
        "Fixed_Profile": {"Name": "Jo Doe", "Birthplace": "Boston"},
        "Others_Profile": {"Contacts_1": {"Name": "Max Roe"}},
        "Full_Session_Chain": [
            {"Session_ID": 0, "Date": "2022-01-03", "Session_Type": "initial_reveal",
             "Session_Outline": "Intro.", "Revealed_Attributes": {"Residence": "Darwin"},
             "Static_Conflict_Information": [{"Conflict_ID": "SC_1", "Role": "Point_A",
                                              "Target_Field_Path": "Birthplace", "Value": "Boston"}],
             "Conditional_Conflict_Information": [
                 {"Conflict_ID": "CC_1", "Rule_ID": "CC_1_R1", "Role": "Point_A",
                  "Preference_Type": "Beverage_Preference", "Item": "Tea",
                  "Condition": "Morning boost"}],
             "Others_Dynamic_Information": []},
            {"Session_ID": 1, "Date": "2022-02-03", "Session_Type": "update",
             "Updated_Attributes": [{"Attribute": "Residence", "Before": "Darwin", "After": "Perth"}],
             "Static_Conflict_Information": [{"Conflict_ID": "SC_1", "Role": "Distractor",
                                              "Source_Person_ID": "Contacts_1",
                                              "Relationship_To_User": "Friend",
                                              "Target_Field_Path": "Birthplace", "Value": "Oslo"}],
             "Conditional_Conflict_Information": [], "Others_Dynamic_Information": []},
        ],
    }


def test_memconflict_field_mapping(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps(_mc_record()) + "\n")
    assert detect_format(path) == "memconflict"
    [conv] = read_memconflict(path)
    ids = [t.source_id for t in conv.turns]
    assert ids == ["S0:outline", "S0:attr:0", "S0:static:0", "S0:conditional:0",
                   "S1:attr:0", "S1:static:0"]
    residence = conv.turn("S1:attr:0")
    assert residence.text == "My residence is now Perth."
    assert residence.meta["update"] is True and residence.meta["before"] == "Darwin"
    assert conv.turn("S0:conditional:0").meta["condition"] == "Morning boost"
    distractor = conv.turn("S1:static:0")
    assert distractor.meta["person"] == "Max Roe" and "Max Roe's birthplace is Oslo" in distractor.text
    assert conv.turns[1].timestamp > conv.turns[0].timestamp
    assert conv.metadata["user"] == "Jo Doe"


def test_memconflict_bad_record_names_line(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    bad = _mc_record()
    del bad["Full_Session_Chain"][1]["Date"]
    path.write_text(json.dumps(_mc_record()) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(InputFormatError, match=r"m\.jsonl: line 2: Full_Session_Chain\.1\.Date"):
        read_memconflict(path)


def test_missing_file_is_input_format_error(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match="file not found"):
        read_conversations(tmp_path / "nope.json")


def test_real_locomo_sample() -> None:
    # the LoCoMo sample bundled with graphmem (MemConflict is never bundled: no license)
    convs = read_conversations(bundled_path("locomo"))
    assert [c.id for c in convs] == ["conv-26", "conv-30"]
    assert sum(len(c.qa) for c in convs) == 304
    assert [len(c.turns) for c in convs] == [419, 369]
    ids = {t.source_id for c in convs for t in c.turns}
    assert {"D1:3", "D1:12"} <= ids

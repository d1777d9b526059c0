"""BEAM reader on small synthetic chat folders: turns, per-batch time anchors, evidence flattening,
long messages cut, natural folder order, errors naming the file; format detection and the
dataset registry's folder entry."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from graphmem.conversations import detect_format, read_beam, read_conversations
from graphmem.conversations.beam import evidence_ids
from graphmem.datasets import resolve
from graphmem.errors import DataNotFoundError, InputFormatError
from graphmem.validation import MAX_TEXT_CHARS


def _msg(i: int, role: str, content: str, anchor: str | None = None) -> dict:
    m = {"role": role, "id": i, "content": content}
    if anchor:
        m["time_anchor"] = anchor
    return m


def _batches() -> list[dict]:
    return [
        {"batch_number": 1, "turns": [
            [_msg(0, "user", "I set up the chat server with Express.", "January-05-2024"),
             _msg(1, "assistant", "Good: add Socket.IO next.")],
            [_msg(2, "user", "I picked MongoDB for messages."),
             _msg(3, "assistant", "Index the room id.")]]},
        {"batch_number": 2, "turns": [
            [_msg(4, "user", "I switched to PostgreSQL.", "March-10-2024"),
             _msg(5, "assistant", "Then migrate the schema.")],
            [_msg(6, "user", "The migration ran on April 2.", "April-02-2024"),
             _msg(7, "assistant", "   ")]]},  # a blank message is left out
    ]


def _questions() -> dict:
    return {
        "knowledge_update": [{"question": "Which database do I use now?",
                              "answer": "PostgreSQL", "source_chat_ids": [4, 2]}],
        "multi_session_reasoning": [{"question": "How did storage change?",
                                     "source_chat_ids": [[2, 3], [4], [2]]}],
        "event_ordering": [{"question": "In what order did things happen?",
                            "source_chat_ids": {"first": [0], "then": [[4], 6]}}],
        "abstention": [{"question": "What was the kickoff agenda?",
                        "ideal_response": "Not in the chat.", "source_chat_ids": None}],
    }


def _chat(folder: Path, batches: list | None = None, questions: dict | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "chat.json").write_text(json.dumps(_batches() if batches is None else batches))
    (folder / "probing_questions.json").write_text(
        json.dumps(_questions() if questions is None else questions))
    return folder


def test_turns_sessions_and_per_batch_time_anchors(tmp_path: Path) -> None:
    [conv] = read_beam(_chat(tmp_path / "7"))
    assert conv.id == "beam-7"
    assert [t.source_id for t in conv.turns] == ["0", "1", "2", "3", "4", "5", "6"]
    assert [t.speaker for t in conv.turns[:2]] == ["user", "assistant"]
    assert conv.speakers == ["user", "assistant"]
    assert [t.session for t in conv.turns] == ["batch_1"] * 4 + ["batch_2"] * 3
    assert [t.position for t in conv.turns] == list(range(7))
    jan5, mar10 = datetime(2024, 1, 5, tzinfo=timezone.utc), datetime(2024, 3, 10, tzinfo=timezone.utc)
    # every message of a batch carries the batch's anchor; a message's own anchor wins
    assert [t.timestamp for t in conv.turns] == [jan5] * 4 + [mar10, mar10,
                                                              datetime(2024, 4, 2, tzinfo=timezone.utc)]
    assert conv.turns[4].text == "I switched to PostgreSQL." and conv.turns[4].meta == {}


def test_questions_flatten_every_evidence_shape(tmp_path: Path) -> None:
    [conv] = read_beam(_chat(tmp_path / "1"))
    by_type = {q.category: q for q in conv.qa}
    assert list(by_type) == ["knowledge_update", "multi_session_reasoning", "event_ordering",
                             "abstention"]
    assert by_type["knowledge_update"].evidence == ["4", "2"]                # list
    assert by_type["knowledge_update"].answer == "PostgreSQL"
    assert by_type["multi_session_reasoning"].evidence == ["2", "3", "4"]    # nested, no repeats
    assert by_type["event_ordering"].evidence == ["0", "4", "6"]             # dict of lists
    assert by_type["abstention"].evidence == []                              # null
    assert by_type["abstention"].answer == "Not in the chat."
    assert evidence_ids({"a": [[1, [2]], None], "b": 3}) == ["1", "2", "3"]
    assert evidence_ids(None) == [] and evidence_ids([]) == []


def test_a_message_over_the_limit_is_cut_and_keeps_its_length(tmp_path: Path) -> None:
    batches = _batches()
    long_text = "x" * (MAX_TEXT_CHARS + 57)
    batches[0]["turns"][0][1]["content"] = long_text
    folder = _chat(tmp_path / "3", batches)
    [conv] = read_conversations(folder, fmt="beam")  # passes the memories' own limits
    clipped = conv.turn("1")
    assert len(clipped.text) == MAX_TEXT_CHARS and clipped.text == long_text[:MAX_TEXT_CHARS]
    assert clipped.meta == {"clipped_from": MAX_TEXT_CHARS + 57}
    assert conv.turn("0").meta == {}


def test_a_folder_of_chats_reads_in_natural_order(tmp_path: Path) -> None:
    root = tmp_path / "500K"
    for name in ("10", "2", "1"):
        _chat(root / name)
    assert [c.id for c in read_beam(root)] == ["beam-1", "beam-2", "beam-10"]
    assert detect_format(root) == "beam" and detect_format(root / "10") == "beam"
    assert [c.id for c in read_conversations(root)] == ["beam-1", "beam-2", "beam-10"]
    assert len(read_conversations(root, fmt="beam")[2].qa) == 4


def test_a_message_without_content_is_an_error_naming_the_file(tmp_path: Path) -> None:
    batches = _batches()
    del batches[1]["turns"][0][1]["content"]
    folder = _chat(tmp_path / "4", batches)
    with pytest.raises(InputFormatError) as err:
        read_beam(folder)
    assert str(folder / "chat.json") in str(err.value)
    assert "batch 1 message 1" in str(err.value) and "'content'" in str(err.value)


def test_an_unparsable_anchor_is_an_error_naming_the_file_and_value(tmp_path: Path) -> None:
    batches = _batches()
    batches[1]["turns"][0][0]["time_anchor"] = "someday soon"
    folder = _chat(tmp_path / "5", batches)
    with pytest.raises(InputFormatError) as err:
        read_beam(folder)
    assert str(folder / "chat.json") in str(err.value) and "batch 1" in str(err.value)
    assert "someday soon" in str(err.value)


def test_a_folder_without_chats_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputFormatError, match="no chat.json"):
        detect_format(tmp_path / "empty")
    with pytest.raises(InputFormatError, match="no chat.json"):
        read_beam(tmp_path / "empty")


def test_the_registry_resolves_a_folder_of_chats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHMEM_DATA", raising=False)
    data = tmp_path / "data"
    (data / "beam").mkdir(parents=True)
    with pytest.raises(DataNotFoundError) as err:  # a beam folder holding no chat
        resolve("beam", data, full=True)
    assert "beam/500K" in str(err.value) and "mohammadtavakoli78/BEAM" in str(err.value)
    _chat(data / "beam" / "chats" / "1")
    assert resolve("beam", data, full=True) == data / "beam"
    _chat(data / "beam" / "500K" / "1")
    assert resolve("beam", data) == data / "beam" / "500K"
    with pytest.raises(DataNotFoundError, match="not bundled"):
        resolve("beam", tmp_path / "data" / "beam" / "500K")  # not a data folder: no beam/ in it
    # file datasets keep their behaviour: a folder named like the file is not the dataset
    (data / "locomo" / "locomo-dev.json").mkdir(parents=True)
    assert resolve("locomo", data).name == "locomo-dev.json"
    assert resolve("locomo", data) != data / "locomo" / "locomo-dev.json"

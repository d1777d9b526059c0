"""The pure parts of forget (graphmem.agent.forget): selector checks, audit digests, count
differences and the rebuilt conversation."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

import pytest

from graphmem.agent.forget import (MAX_MESSAGE_IDS, check_selectors, rebuild_conversation, removed,
                                   selector_digests)
from graphmem.errors import InvalidInputError


def test_selectors_need_one_and_name_the_bad_value() -> None:
    assert check_selectors(["D1:1", "D1:1", "D1:2"], None, "Ann") == {
        "message_ids": ["D1:1", "D1:2"], "conversation": None, "speaker": "Ann"}
    assert check_selectors(None, "c1", None)["conversation"] == "c1"
    with pytest.raises(InvalidInputError, match="at least one selector"):
        check_selectors(None, None, None)
    with pytest.raises(InvalidInputError, match=r"list of ids.*\['D1:1'\]"):
        check_selectors("D1:1", None, None)
    with pytest.raises(InvalidInputError, match="message_ids is empty"):
        check_selectors([], None, None)
    with pytest.raises(InvalidInputError, match=r"message_ids\[1\]"):
        check_selectors(["ok", ""], None, None)
    with pytest.raises(InvalidInputError, match="speaker"):
        check_selectors(None, None, "x" * 2000)
    with pytest.raises(InvalidInputError, match=f"at most {MAX_MESSAGE_IDS}"):
        check_selectors([str(i) for i in range(MAX_MESSAGE_IDS + 1)], None, None)


def test_audit_digests_keep_no_value() -> None:
    got = selector_digests("ns1", {"message_ids": ["b", "a"], "conversation": "c1",
                                   "speaker": None})
    assert set(got) == {"message_ids", "conversation"}
    assert got["conversation"] == [hashlib.sha256(b"ns1\x1fc1").hexdigest()]
    assert got["message_ids"] == sorted(hashlib.sha256(f"ns1\x1f{v}".encode()).hexdigest()
                                        for v in ("a", "b"))
    assert selector_digests("ns2", {"conversation": "c1"}) != {"conversation": got["conversation"]}


def test_removed_counts_changed_keys_only() -> None:
    assert removed({"Event": 10, "Topic": 3, "Cue": 5}, {"Event": 7, "Topic": 3, "Tag": 1}) == {
        "Cue": 5, "Event": 3, "Tag": -1}


def test_rebuilt_conversation_keeps_ids_times_sessions_and_order() -> None:
    t0 = datetime(2024, 5, 1, 9, tzinfo=timezone.utc)
    rows = [{"source_id": "m2", "text": "second", "speaker": "Bo", "session": "s1",
             "occurred_at": t0, "seq": 7, "message_json": '{"x": 1}'},
            {"source_id": "m3", "text": "third", "speaker": "Ann", "session": None,
             "occurred_at": t0, "seq": 9, "message_json": None}]
    conv = rebuild_conversation("c1", rows)
    assert conv.id == "c1" and conv.speakers == ["Bo", "Ann"]
    assert [(t.source_id, t.text, t.session, t.position, t.message_json) for t in conv.turns] == [
        ("m2", "second", "s1", 7, '{"x": 1}'), ("m3", "third", "default", 9, None)]
    assert all(t.timestamp == t0 for t in conv.turns)

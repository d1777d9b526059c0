"""Message parsing of the agent verbs: aliases, timestamps, ids, arrival order, errors."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graphmem.agent.messages import (Message, message_id, next_sequence, parse_messages,
                                     to_conversation)
from graphmem.errors import EmptyTextError, InvalidInputError


def test_aliases_and_timestamps():
    [a, b, c] = parse_messages([
        {"speaker": "Ann", "text": "hi", "timestamp": "2024-05-03T09:00:00"},
        {"role": "user", "content": "yo", "id": 7, "timestamp": datetime(2024, 5, 3, 10)},
        Message(role="ai", content="hello"),
    ])
    assert (a.role, a.content, a.timestamp) == ("Ann", "hi", datetime(2024, 5, 3, 9, tzinfo=timezone.utc))
    assert b.id == "7" and b.timestamp.hour == 10
    assert c.timestamp is None and c.id is None


def test_langchain_messages_and_single_message():
    [h, a] = parse_messages([HumanMessage("I live in Lyon", id="h1"), AIMessage("ok")])
    assert (h.role, h.id, a.role) == ("human", "h1", "ai")
    assert len(parse_messages({"role": "u", "content": "x"})) == 1


@pytest.mark.parametrize("bad, error", [
    ([{"role": "u", "content": "  "}], EmptyTextError),
    ([{"role": "u"}], InvalidInputError),
    ([{"content": "x"}], InvalidInputError),
    ([{"role": "u", "content": "x", "timestamp": "not a date at all"}], InvalidInputError),
    ([42], InvalidInputError),
    ([], InvalidInputError),
])
def test_bad_messages(bad, error):
    with pytest.raises(error):
        parse_messages(bad)


def test_arrival_sequence_increases_and_missing_times_follow_previous():
    seqs = [next_sequence() for _ in range(1000)]
    assert seqs == sorted(seqs) and len(set(seqs)) == 1000
    last = datetime(2024, 1, 1, tzinfo=timezone.utc)
    conv = to_conversation(parse_messages([
        {"role": "u", "content": "a", "id": "1"},
        {"role": "u", "content": "b", "id": "2", "timestamp": "2024-02-01T00:00:00Z"},
        {"role": "u", "content": "c"},
    ]), "c1", None, last)
    assert [t.timestamp.month for t in conv.turns] == [1, 2, 2]
    positions = [t.position for t in conv.turns]
    assert positions == sorted(positions) and len(set(positions)) == 3
    assert conv.turns[2].source_id.startswith("msg-") and conv.turns[0].session == "default"


def test_derived_ids_are_not_idempotent_and_duplicates_rejected():
    assert message_id("c", "s", "x", 1) != message_id("c", "s", "x", 2)
    with pytest.raises(InvalidInputError, match="twice"):
        to_conversation(parse_messages([{"role": "u", "content": "a", "id": "1"},
                                        {"role": "u", "content": "b", "id": "1"}]), "c", None, None)
    with pytest.raises(InvalidInputError):
        to_conversation(parse_messages([{"role": "u", "content": "a"}]), " ", None, None)

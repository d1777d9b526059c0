"""The MCP server's errors through a real MCP client session (in-process) on real Neo4j: tool
errors carry graphmem's typed error and its reason (no pydantic links), arguments are strict,
and a refused ``remember`` stores nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp  # noqa: F401  (the test extra installs it)
from mcp import Client

from graphmem.facade import GraphMemory
from graphmem.mcp_server import build_server
from graphmem.validation import MAX_ACTION_CHARS, MAX_TEXT_CHARS


def _is_error(result: Any) -> bool:
    flag = getattr(result, "is_error", None)
    return bool(flag if flag is not None else result.isError)


def _text(result: Any) -> str:
    return result.content[0].text


def _calls(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return asyncio.run(asyncio.wait_for(run(), timeout=300))


def test_tool_errors_carry_the_reason_and_arguments_are_strict(runner, embedder, namespace):
    mem = GraphMemory(runner, embedder, namespace)
    server = build_server(namespace, opener=lambda ns: mem.scoped(ns))
    results = _calls(server, [
        ("remember", {"content": "I adopted a cat named Pixel.", "role": "Ann",
                      "message_id": "m1", "conversation_id": "c1"}),
        ("remember", {"content": "My sister lives in Porto.", "message_id": "中" * 2800,
                      "conversation_id": "c1"}),
        ("remember", {"content": "   ", "conversation_id": "c1"}),
        ("remember", {"content": "x" * (MAX_TEXT_CHARS + 1), "conversation_id": "c1"}),
        ("remember", {"content": "hi", "conversation": "c1"}),
        ("recall", {"query": "cat", "k": True}),
        ("recall", {"query": "cat", "k": "3"}),
        ("feedback", {"task": "feed the cat", "status": "resolved",
                      "trajectory": ["a" * (MAX_ACTION_CHARS + 1)]}),
        ("feedback", {"task": "feed the cat", "status": "done"}),
        ("recall", {"query": "What is the cat called?", "k": 2}),
    ])
    ok, cjk, blank, long_text, unknown, k_bool, k_str, action, status, found = results
    assert not _is_error(ok)
    errors = {
        "cjk": (cjk, "InvalidInputError: message 0: id is 8400 UTF-8 bytes (2800 characters), "
                     "more than the limit MAX_KEY_BYTES=1024"),
        "blank": (blank, "EmptyTextError: message 0: content is empty"),
        "long": (long_text, f"InvalidInputError: message 0: content has {MAX_TEXT_CHARS + 1} "
                            f"characters, more than the limit MAX_TEXT_CHARS={MAX_TEXT_CHARS}"),
        "unknown": (unknown, "InvalidInputError: remember: unknown argument(s) 'conversation'; "
                             "remember takes content, role, message_id, conversation_id, "
                             "timestamp"),
        "k_bool": (k_bool, "InvalidInputError: recall: argument 'k' must be integer, got True"),
        "k_str": (k_str, "InvalidInputError: recall: argument 'k' must be integer, got '3'"),
        "action": (action, "TrajectoryError: trajectory: steps.0.action: action has 100001 "
                           "characters, more than the limit MAX_ACTION_CHARS=100000"),
        "status": (status, "InvalidInputError: feedback: argument 'status' must be "
                           "['resolved', 'failed'], got 'done'"),
    }
    for name, (result, expected) in errors.items():
        assert _is_error(result), name
        assert expected in _text(result), (name, _text(result)[:300])
        assert "pydantic" not in _text(result), name
    assert not _is_error(found)
    stored = mem.messages("c1")
    assert [(m.id, m.content) for m in stored] == [("m1", "I adopted a cat named Pixel.")]
    assert mem.associative.counts()["Episode"] == 1
    assert mem.experience.counts()["Task"] == 0


def test_remember_accepts_content_of_exactly_the_limit(runner, embedder, namespace):
    mem = GraphMemory(runner, embedder, namespace)
    server = build_server(namespace, opener=lambda ns: mem.scoped(ns))
    text = "p" * MAX_TEXT_CHARS
    [result] = _calls(server, [("remember", {"content": text, "message_id": "big"})])
    assert not _is_error(result), _text(result)[:300]
    assert [(m.id, len(m.content)) for m in mem.messages("default")] == [("big", MAX_TEXT_CHARS)]

"""``graphmem mcp -n NS`` as a subprocess, spoken to through the MCP SDK's stdio client."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

import mcp  # noqa: E402,F401  (the test extra installs it)

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _payload(result) -> dict:
    assert not result.is_error if hasattr(result, "is_error") else not result.isError, result
    structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    if structured:
        return structured.get("result", structured) if "result" in structured and len(structured) == 1 else structured
    return json.loads(result.content[0].text)


def test_mcp_server_remember_and_recall(neo4j_server, namespace):
    env = {**os.environ, "NEO4J_URI": neo4j_server["uri"],
           "NEO4J_USERNAME": neo4j_server["username"],
           "NEO4J_PASSWORD": neo4j_server["password"], "NEO4J_DATABASE": neo4j_server["database"],
           "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "graphmem.cli.main", "mcp", "-n", namespace],
                                   env=env, cwd=str(ROOT))

    async def session_run() -> None:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                assert {t.name for t in tools.tools} == {
                    "remember", "recall", "recall_state", "feedback", "recall_experience", "forget",
                    "recall_memory"}
                for mid, text in (("m1", "My sister Lena lives in Porto and teaches piano."),
                                  ("m2", "I adopted a grey cat named Pixel last spring.")):
                    out = _payload(await session.call_tool("remember", {
                        "content": text, "role": "Ann", "message_id": mid,
                        "conversation_id": "c1", "timestamp": "2024-05-03T09:00:00Z"}))
                    assert out["created"]["state"]["Event"] == 1
                again = _payload(await session.call_tool("remember", {
                    "content": "I adopted a grey cat named Pixel last spring.", "role": "Ann",
                    "message_id": "m2", "conversation_id": "c1"}))
                assert again["skipped"]["state"] == {"turn": 1}
                found = _payload(await session.call_tool("recall", {"query": "What is the cat called?", "k": 3}))
                top = found["items"][0]
                assert "Pixel" in top["text"] and "m2" in top["source_ids"]
                assert top["memory"] in ("state", "associative") and top["path"]
                bad = await session.call_tool("recall", {"query": "   ", "k": 3})
                is_error = getattr(bad, "is_error", None)
                assert (is_error if is_error is not None else bad.isError)
                assert "EmptyTextError" in bad.content[0].text
                gone = _payload(await session.call_tool("forget", {"message_ids": ["m1"],
                                                                   "conversation_id": "c1"}))
                assert gone["messages"] == 1 and gone["per_memory"] == {"state": 1,
                                                                        "associative": 1}
                assert gone["nodes"]["Event"] == 1 and gone["nodes"]["Episode"] == 1
                assert gone["rebuilt"] == {"state": 1, "associative": 1} and gone["audit_id"]
                left = _payload(await session.call_tool("recall", {"query": "Who lives in Porto?",
                                                                   "k": 5}))
                assert left["items"] and all("m1" not in i["source_ids"] for i in left["items"])
                none = await session.call_tool("forget", {})
                assert "InvalidInputError" in none.content[0].text

    asyncio.run(asyncio.wait_for(session_run(), timeout=300))

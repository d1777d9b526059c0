"""The MCP server's tool surface without a database: names, namespace validation, typed errors
as tool errors, the facade opened once."""

from __future__ import annotations

import asyncio

import pytest

import mcp  # noqa: E402,F401  (the test extra installs it)

from graphmem.errors import EmptyTextError, InvalidInputError  # noqa: E402
from graphmem.mcp_server import TOOL_NAMES, build_server  # noqa: E402


class _Fake:
    namespace = "x"
    opened = 0

    def recall(self, query, k, **options):
        raise EmptyTextError("query is empty")

    def add(self, messages, conversation_id="default"):
        raise InvalidInputError("message 0: content: too short")

    def close(self):
        pass


def test_tools_errors_and_single_open():
    opened = []

    def opener(ns):
        opened.append(ns)
        return _Fake()

    server = build_server("agent-1", opener=opener)

    async def run():
        names = [t.name for t in await server.list_tools()]
        assert tuple(names) == TOOL_NAMES
        for name, args, text in (("recall", {"query": " ", "k": 2}, "EmptyTextError"),
                                 ("remember", {"content": "x"}, "InvalidInputError")):
            with pytest.raises(Exception, match=text) as info:
                await server.call_tool(name, args)
            assert "ToolError" in type(info.value).__name__

    asyncio.run(run())
    assert opened == ["agent-1"]


def test_bad_namespace_refused():
    with pytest.raises(InvalidInputError):
        build_server("bad ns!")


def test_the_server_logs_warnings_only_unless_asked() -> None:
    import subprocess
    import sys

    script = ("import logging\n"
              "from graphmem.mcp_server import build_server\n"
              "{setup}"
              "build_server('x', opener=lambda ns: None)\n"
              "logging.getLogger('graphmem.probe').info('an info line')\n"
              "logging.getLogger('graphmem.probe').warning('a warning line')\n")
    quiet = subprocess.run([sys.executable, "-c", script.format(setup="")], capture_output=True,
                           text=True, timeout=120, check=True)
    assert "a warning line" in quiet.stderr and "an info line" not in quiet.stderr
    asked = subprocess.run([sys.executable, "-c", script.format(
        setup="logging.getLogger('graphmem').setLevel(logging.INFO)\n")], capture_output=True,
        text=True, timeout=120, check=True)
    assert "a warning line" in asked.stderr and "an info line" in asked.stderr

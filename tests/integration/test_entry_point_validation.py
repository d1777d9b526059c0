"""One bad message is refused the same way at every write entry point, against real Neo4j, and
nothing of its call is stored: ``mem.add``, the LangChain chat history, the LangChain
``remember`` tool, and file ingest (generic JSONL through state and associative memory). (MCP
``remember`` is covered with the same values in ``test_mcp_errors.py``.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import ToolException

from graphmem.errors import InvalidInputError
from graphmem.facade import GraphMemory
from graphmem.langchain import GraphmemChatMessageHistory, memory_tools
from graphmem.validation import MAX_TEXT_CHARS

LONG_ID = "中" * 2800  # 8400 UTF-8 bytes: over the 1 KB key limit
TOO_LONG = "x" * (MAX_TEXT_CHARS + 1)
CASES = [
    ("id", {"id": LONG_ID, "content": "My sister lives in Porto."},
     "id is 8400 UTF-8 bytes (2800 characters), more than the limit MAX_KEY_BYTES=1024"),
    ("content", {"id": "m-long", "content": TOO_LONG},
     f"content has {MAX_TEXT_CHARS + 1} characters, more than the limit "
     f"MAX_TEXT_CHARS={MAX_TEXT_CHARS}"),
]


def _graph(mem: GraphMemory) -> tuple[dict, dict]:
    return mem.counts(), mem.relationship_counts()


@pytest.mark.parametrize(("field", "bad", "reason"), CASES, ids=[c[0] for c in CASES])
def test_every_entry_point_refuses_the_same_message_and_stores_nothing(
        runner, embedder, namespace, tmp_path: Path, field, bad, reason):
    mem = GraphMemory(runner, embedder, namespace)
    mem.add([{"id": "m0", "role": "Ann", "content": "I live in Lyon."}], conversation_id="c1")
    before = _graph(mem)
    short = re.escape(reason.split(",")[0])
    good = {"id": "m1", "role": "Ann", "content": "I adopted a cat named Pixel."}

    with pytest.raises(InvalidInputError, match="message 1: " + short):
        mem.add([good, {"role": "Ann", **bad}], conversation_id="c1")
    assert _graph(mem) == before

    history = GraphmemChatMessageHistory(mem, conversation_id="c1")
    with pytest.raises(InvalidInputError, match=short):
        history.add_messages([HumanMessage(good["content"], id="m1"),
                              HumanMessage(bad["content"], id=bad["id"])])
    assert _graph(mem) == before

    remember, _ = memory_tools(mem, conversation_id="c1")
    with pytest.raises(ToolException, match=short):
        remember.func(content=bad["content"], role="Ann", message_id=bad["id"])
    assert _graph(mem) == before

    path = tmp_path / "chat.jsonl"
    rows = [{"speaker": "Ann", "text": good["content"], "id": "m1", "conversation": "c1",
             "timestamp": "2024-05-03T09:00:00Z"},
            {"speaker": "Ann", "text": bad["content"], "id": bad["id"], "conversation": "c1",
             "timestamp": "2024-05-03T09:01:00Z"}]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                    encoding="utf-8")
    for memory in (mem.state, mem.associative):
        with pytest.raises(InvalidInputError) as info:
            memory.ingest_file(path)
        # the file names its line or turn and its own field ("text" for content), and the
        # same limit
        limit = reason.split(" ", 1)[1]
        assert str(path) in str(info.value) and limit in str(info.value)
    assert _graph(mem) == before
    assert [m.id for m in mem.messages("c1")] == ["m0"]

"""LLM accounting helpers (graphmem.llm) and the base class's async recall (graphmem.memory)."""

from __future__ import annotations

import asyncio
import threading

from fakes import ScriptedChatModel, tool_reply
from pydantic import BaseModel

from graphmem.memory import Memory
from graphmem.llm import LLMUsage, describe_usage, invoke_structured, usage_totals


class Answer(BaseModel):
    text: str


def test_describe_usage_lines() -> None:
    usage = LLMUsage()
    assert describe_usage(usage, "heuristic") == "LLM calls: 0 (heuristic path)"
    invoke_structured(ScriptedChatModel(responses=[tool_reply("Answer", {"text": "x"}, 12, 4)]),
                      Answer, [("human", "hi")], usage, "state.extract")
    usage.record("state.controller", 3, 1)
    assert usage_totals(usage) == (2, 15, 5)
    assert describe_usage(usage, "llm") == (
        "LLM calls: 2 (llm path; 15 input / 5 output tokens; state.controller 1, state.extract 1)")


class _Memory(Memory):
    name = "x"

    def __init__(self) -> None:
        super().__init__(runner=None, embedder=None)  # type: ignore[arg-type]
        self.threads: set[int] = set()

    def ingest(self, inputs, *, progress=None, **options):  # noqa: ANN001, ANN003
        raise NotImplementedError

    def counts(self) -> dict[str, int]:
        return {}

    def recall(self, question: str, k: int = 1) -> tuple[str, int]:  # type: ignore[override]
        self.threads.add(threading.get_ident())
        usage = LLMUsage()
        usage.record("x.route", 2, 1)
        self._account(usage)
        return question, k


def test_running_total_is_exact_under_threads() -> None:
    mem = _Memory()

    async def main() -> list:
        return await asyncio.gather(*(mem.arecall(f"q{i}", k=i) for i in range(50)))

    results = asyncio.run(main())
    assert results == [(f"q{i}", i) for i in range(50)]
    assert threading.get_ident() not in mem.threads  # never on the event loop's thread
    op = mem.llm_usage.operations["x.route"]
    assert (op.calls, op.input_tokens, op.output_tokens) == (50, 100, 50)
    copy = mem.llm_usage
    copy.record("x.route")
    assert mem.llm_usage.calls == 50  # llm_usage is a copy

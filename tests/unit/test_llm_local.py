"""LocalChatModel's plumbing over a stand-in for ``llama_cpp.Llama`` (the real GGUF runs in
tests/integration/test_local_llm.py): schema-constrained requests, token counts, timeouts, and
the factory's errors when the extra is missing."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import time
from typing import Any

import pytest
from pydantic import BaseModel

from graphmem.errors import ConfigurationError, ControllerError
from graphmem.llm import LLMTimeoutError, LLMUsage, constrained_schema, invoke_structured
from graphmem.llm_local import LocalChatModel, grammar_schema, local_chat_model


class Pick(BaseModel):
    index: int
    label: str


class _StubLlama:
    """Streams scripted replies word by word; one token per word."""

    metadata: dict[str, str] = {}

    def __init__(self, replies: list[str], delay: float = 0.0, finish: str = "stop") -> None:
        self.replies, self.delay, self.finish = list(replies), delay, finish
        self.requests: list[dict[str, Any]] = []

    def tokenize(self, data: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return list(range(len(data.split()) + int(add_bos)))

    def create_chat_completion(self, **kwargs: Any):  # noqa: ANN201
        self.requests.append(kwargs)
        words = self.replies.pop(0).split(" ")

        def stream():  # noqa: ANN202
            for i, word in enumerate(words):
                time.sleep(self.delay)
                last = i == len(words) - 1
                yield {"choices": [{"delta": {"content": word + ("" if last else " ")},
                                    "finish_reason": self.finish if last else None}]}

        return stream()


def _model(stub: _StubLlama, **options: Any) -> LocalChatModel:
    model = LocalChatModel(model_path="stub.gguf", **options)
    model._llama = stub
    return model


def test_structured_reply_decodes_under_the_call_schema_and_counts_tokens() -> None:
    stub = _StubLlama(['{"index": 1, "label": "tea"}'])
    schema = constrained_schema(Pick, ranges={"index": (0, 2)}, min_length=True)
    usage = LLMUsage()
    out = invoke_structured(_model(stub), Pick, [("system", "Pick one."), ("human", "a b c")],
                            usage, "associative.route", json_schema=schema)
    assert out == Pick(index=1, label="tea")
    sent = stub.requests[0]["response_format"]
    assert sent["type"] == "json_object"
    assert sent["schema"]["properties"]["index"]["enum"] == [0, 1, 2]  # range lowered for grammar
    assert sent["schema"]["properties"]["label"]["minLength"] == 1
    assert stub.requests[0]["temperature"] == 0.0 and stub.requests[0]["stream"] is True
    system = stub.requests[0]["messages"][0]
    assert system["role"] == "system" and '"minLength":1' in system["content"]
    op = usage.operations["associative.route"]
    assert op.calls == 1 and op.output_tokens == 4 and op.input_tokens > 5


def test_token_limit_raises_a_timeout_with_its_usage_then_controller_error() -> None:
    stub = _StubLlama(['{"index": 1,', '{"index": 1,'], finish="length")
    usage = LLMUsage()
    with pytest.raises(ControllerError, match="state.extract.*512-token limit"):
        invoke_structured(_model(stub), Pick, [("human", "x")], usage, "state.extract")
    op = usage.operations["state.extract"]
    assert op.calls == 2 and op.output_tokens == 4


def test_wall_clock_limit_stops_the_stream() -> None:
    stub = _StubLlama(["one two three four five six seven eight"], delay=0.05)
    model = _model(stub, timeout_s=0.1)
    with pytest.raises(LLMTimeoutError, match="wall-clock") as info:
        model.invoke([("human", "x")])
    assert 0 < info.value.usage_metadata["output_tokens"] < 8


def test_plain_invoke_has_usage_metadata() -> None:
    reply = _model(_StubLlama(["hello there"])).invoke("hi")
    assert reply.content == "hello there"
    assert reply.usage_metadata["output_tokens"] == 2
    assert reply.usage_metadata["input_tokens"] == 2  # "hi" + BOS, no chat template


def test_grammar_schema_lowers_only_bounded_integers() -> None:
    schema = {"type": "object", "properties": {
        "a": {"type": "integer", "minimum": 2, "maximum": 4},
        "b": {"type": "integer", "minimum": 0},
        "c": {"type": "integer", "minimum": 0, "maximum": 10_000}}}
    lowered = grammar_schema(schema)
    assert lowered["properties"]["a"]["enum"] == [2, 3, 4]
    assert "enum" not in lowered["properties"]["b"] and "enum" not in lowered["properties"]["c"]
    assert "enum" not in schema["properties"]["a"]  # input untouched


def test_factory_names_the_extra_when_the_model_package_is_missing(monkeypatch) -> None:
    import graphmem.llm_local as local

    def missing(name: str):  # noqa: ANN202
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(local, "_require_llama_cpp", lambda: None)
    monkeypatch.setattr(local.importlib.metadata, "distribution", missing)
    with pytest.raises(ConfigurationError, match=r"pip install 'graphmem\[local-llm\]'"):
        local_chat_model()


def test_factory_names_the_extra_when_llama_cpp_is_missing(monkeypatch) -> None:
    import graphmem.llm_local as local

    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigurationError, match=r"llama_cpp.*graphmem\[local-llm\]"):
        local_chat_model()


def test_importing_graphmem_does_not_import_llama_cpp() -> None:
    code = ("import sys, graphmem, graphmem.llm, graphmem.llm_local; "
            "print('llama_cpp' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"

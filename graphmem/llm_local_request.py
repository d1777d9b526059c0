"""What llama.cpp is given for one chat call of :class:`graphmem.llm_local.LocalChatModel`.

langchain-core messages become llama.cpp's chat dicts (``system`` / ``user`` / ``assistant`` /
``tool`` roles, plain text contents); a structured call's JSON schema is lowered to what
llama.cpp's JSON-schema-to-grammar converter enforces fully (:func:`grammar_schema`) and, when
the model is to see it, shown in the system message without pydantic's titles
(:func:`with_schema_note`). :func:`llama_request` does both for one call.

Pure: no I/O; llama_cpp is not imported here.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

#: langchain-core message types -> llama.cpp chat roles (anything else is sent as ``user``).
ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}
#: Most values a bounded integer may have to be lowered to an ``enum`` by :func:`grammar_schema`.
MAX_ENUM_RANGE = 512


def grammar_schema(schema: Mapping[str, Any], max_string_chars: int | None = None,
                   ) -> dict[str, Any]:
    """A copy of ``schema`` that llama.cpp's JSON-schema-to-grammar converter can enforce fully:
    an integer bounded on both sides (``minimum``/``maximum``, at most 512 values) becomes an
    ``enum`` of its values, since the converter ignores numeric bounds; with
    ``max_string_chars``, every free string without a ``maxLength`` gets that one (a small
    model may otherwise repeat itself inside a string until ``max_tokens``)."""
    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        node = {k: walk(v) for k, v in node.items()}
        low, high = node.get("minimum"), node.get("maximum")
        if (node.get("type") == "integer" and "enum" not in node and isinstance(low, int)
                and isinstance(high, int) and 0 <= high - low < MAX_ENUM_RANGE):
            node["enum"] = list(range(low, high + 1))
        if (max_string_chars is not None and node.get("type") == "string"
                and not {"enum", "const", "maxLength"} & node.keys()):
            node["maxLength"] = max_string_chars
        return node

    return walk(copy.deepcopy(dict(schema)))


def message_text(content: Any) -> str:
    """A message's content as plain text (list contents keep their text parts)."""
    if isinstance(content, str):
        return content
    return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content)


def with_schema_note(chat: list[dict[str, str]],
                     schema: Mapping[str, Any]) -> list[dict[str, str]]:
    """``chat`` with the schema shown in its system message (one is added when missing)."""
    note = ("Reply with one JSON object only, following this JSON schema: "
            + json.dumps(without_titles(schema), separators=(",", ":"), ensure_ascii=False))
    if chat and chat[0]["role"] == "system":
        return [{"role": "system", "content": f"{chat[0]['content']}\n\n{note}"}, *chat[1:]]
    return [{"role": "system", "content": note}, *chat]


def without_titles(node: Any) -> Any:
    """``node`` without pydantic's ``title`` keys (they only cost prompt tokens)."""
    if isinstance(node, list):
        return [without_titles(n) for n in node]
    if not isinstance(node, dict):
        return node
    return {k: without_titles(v) for k, v in node.items()
            if not (k == "title" and isinstance(v, str))}


def llama_request(messages: Sequence[Any], response_format: Mapping[str, Any] | None,
                  max_string_chars: int | None = None, schema_in_prompt: bool = True,
                  ) -> tuple[list[dict[str, str]], dict[str, Any] | None]:
    """The chat and the ``response_format`` llama.cpp gets for ``messages`` (langchain-core
    messages). A ``response_format`` holding a ``schema`` becomes ``{"type": "json_object",
    "schema": grammar_schema(schema, max_string_chars)}``, and with ``schema_in_prompt`` that
    schema is also shown in the chat's system message; any other ``response_format`` is passed
    on as it is."""
    chat = [{"role": ROLES.get(m.type, "user"), "content": message_text(m.content)}
            for m in messages]
    if not response_format or response_format.get("schema") is None:
        return chat, None if response_format is None else dict(response_format)
    schema = grammar_schema(response_format["schema"], max_string_chars)
    if schema_in_prompt:
        chat = with_schema_note(chat, schema)
    return chat, {"type": "json_object", "schema": schema}

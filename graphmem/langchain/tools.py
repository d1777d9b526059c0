"""The ``remember`` and ``recall`` tools (``langchain_core.tools.StructuredTool``) an agent
calls to write to and read from graphmem.

    tools = memory_tools(mem, conversation_id="chat-42")
    model = chat_model.bind_tools(tools)
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from langchain_core.tools import StructuredTool, ToolException
from pydantic import BaseModel, Field
from pydantic import ValidationError as PydanticValidationError

from graphmem.errors import GraphmemError
from graphmem.recall_options import DEFAULT_K, MAX_K
from graphmem.validation import describe_validation_error

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)


class RememberArgs(BaseModel):
    """Arguments of ``remember``."""

    content: str = Field(min_length=1, description="the fact or message to keep, as a sentence")
    role: str = Field("user", min_length=1, description="who said it (user, assistant, a name)")
    message_id: str | None = Field(None, description="id making a repeated call a no-op")


class RecallArgs(BaseModel):
    """Arguments of ``recall``."""

    query: str = Field(min_length=1, description="what to look up, as a question")
    k: int = Field(DEFAULT_K, ge=1, le=MAX_K, description="how many items to return")


def format_items(result: object) -> str:
    """A recall result as JSON lines an LLM reads: memory, kind, text, source ids."""
    lines = []
    for item in getattr(result, "items", []):
        lines.append(json.dumps({"memory": item.memory, "kind": item.kind, "text": item.text,
                                 "source_ids": item.source_ids}, ensure_ascii=False))
    return "\n".join(lines) or "nothing found"


def _invalid_arguments(exc: Exception) -> str:
    """The tool's text for arguments its schema refuses: graphmem's error form, naming the
    argument and the value, without pydantic's links."""
    if isinstance(exc, PydanticValidationError):
        return f"InvalidInputError: {describe_validation_error(exc)}"
    return f"InvalidInputError: {exc}"


def memory_tools(memory: GraphMemory, conversation_id: str = "default", *,
                 recall_memories: list[str] | None = None) -> list[StructuredTool]:
    """``[remember, recall]`` bound to ``memory`` and ``conversation_id``. graphmem's typed
    errors become ``ToolException`` s (returned to the model as the tool's text), and so do
    arguments the schema refuses (``"InvalidInputError: <field>: <problem>"``); ``remember``
    goes through ``GraphMemory.add``, so it applies the same limits as every write.

    Args:
        memory: the facade. conversation_id: where ``remember`` writes.
        recall_memories: memories ``recall`` fuses (default: those holding data).
    """

    def remember(content: str, role: str = "user", message_id: str | None = None) -> str:
        try:
            reports = memory.add([{"role": role, "content": content, "id": message_id}],
                                 conversation_id=conversation_id)
        except GraphmemError as exc:
            raise ToolException(f"{type(exc).__name__}: {exc}") from exc
        created = sum(sum(r.created.values()) for r in reports.values())
        return f"remembered ({created} nodes created)" if created else "already remembered"

    def recall(query: str, k: int = DEFAULT_K) -> str:
        try:
            result = memory.recall(query, k, memories=recall_memories)
        except GraphmemError as exc:
            raise ToolException(f"{type(exc).__name__}: {exc}") from exc
        return format_items(result)

    return [
        StructuredTool.from_function(
            remember, name="remember", args_schema=RememberArgs, handle_tool_error=True,
            handle_validation_error=_invalid_arguments,
            description="Store a fact or message in long-term memory."),
        StructuredTool.from_function(
            recall, name="recall", args_schema=RecallArgs, handle_tool_error=True,
            handle_validation_error=_invalid_arguments,
            description="Look up long-term memory: returns items (JSON lines) with the memory "
                        "that found them and their source ids."),
    ]

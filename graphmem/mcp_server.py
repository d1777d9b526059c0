"""An MCP server over graphmem (the official ``mcp`` Python SDK; ``pip install graphmem[mcp]``).

    graphmem mcp -n my-agent          # serves over stdio

Tools (one namespace per server, fixed at start):

- ``remember(content, role="user", message_id=None, conversation_id="default", timestamp=None)``:
  store one message (state and associative memory); idempotent per ``message_id``;
- ``recall(query, k=10, since=None, until=None, as_of=None, include_archived=False)``: the fused
  recall over the memories holding data; ``since`` / ``until`` are ISO 8601 text with an offset
  (read by :func:`graphmem.timeparse.parse_timestamp`), the half-open window ``since <= t <
  until``; ``as_of`` answers as at that time (:mod:`graphmem.time_travel`); ``include_archived``
  also recalls units archived by retention;
- ``recall_state(query, k=10, since=None, until=None, as_of=None, include_archived=False)``: state
  memory only (current / past states with validity), same options;
- ``feedback(task, status, trajectory=None)``: a task's outcome (``resolved`` / ``failed``) and
  optionally its actions;
- ``recall_experience(task, k=10)``: past tasks similar to ``task`` with their decisions.
- ``forget(message_ids=None, conversation_id=None, speaker=None)``: forget messages for good,
  with everything derived from them, in every memory (``GraphMemory.forget``).
- ``recall_memory(memory, query, k=10)``: one registered memory's own recall (a plugin memory's
  included; the tool's description lists the memories registered when the server starts); an
  unknown ``memory`` is refused naming the registered ones.

Every result is a JSON object. Bad input and graphmem's typed errors come back as MCP tool
errors carrying the message (``"<ErrorType>: <what is wrong and what to do>"``, never pydantic's
links). Arguments are checked strictly against each tool's input schema before the tool runs: an
unknown argument, a missing one, or a value of the wrong JSON type (``k=true``, ``k="5"``) is
refused naming the argument (:func:`check_arguments`). The facade (Neo4j connection and embedding model) is opened on
the first call and kept for the server's life.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError as PydanticValidationError

from graphmem.errors import ConfigurationError, GraphmemError, InvalidInputError
from graphmem.names import validate_namespace
from graphmem.recall_options import DEFAULT_K
from graphmem.time_travel import check_as_of
from graphmem.validation import describe_validation_error

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: The tools the server exposes.
TOOL_NAMES = ("remember", "recall", "recall_state", "feedback", "recall_experience", "forget",
              "recall_memory")
#: What the recall tools say of their time window.
WINDOW_HELP = ("since / until: ISO 8601 times with an offset (e.g. 2023-01-01T00:00:00Z), "
               "optional: only items with since <= time < until. as_of: an ISO 8601 time, "
               "optional: answer as memory would have then (what had happened by then, "
               "states judged then). include_archived: also units archived by retention.")


def _sdk() -> tuple[type, type[Exception]]:
    """The SDK's server class and tool error (``MCPServer`` in mcp 2, ``FastMCP`` in mcp 1)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        return MCPServer, ToolError
    except ImportError:
        pass
    try:
        from mcp.server.fastmcp import FastMCP
        from mcp.server.fastmcp.exceptions import ToolError
        return FastMCP, ToolError
    except ImportError as exc:
        raise ConfigurationError("the MCP server needs the 'mcp' package: "
                                 "pip install 'graphmem[mcp]'") from exc


def _describe_json(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_arguments(tool: str, arguments: dict[str, Any], schema: dict[str, Any]) -> None:
    """Refuse tool arguments that do not match ``schema`` (the tool's published JSON input
    schema) strictly: no unknown argument, every required one, JSON types exact (a boolean is
    not a number, a string is not a number).

    Raises:
        InvalidInputError: naming the tool, the argument, the expected type and the value.
    """
    from jsonschema import Draft202012Validator

    known = dict(schema.get("properties", {}))
    unknown = sorted(set(arguments) - set(known))
    if unknown:
        raise InvalidInputError(
            f"{tool}: unknown argument(s) {', '.join(map(repr, unknown))}; {tool} takes "
            f"{', '.join(known) or 'no arguments'}")
    strict = {**schema, "additionalProperties": False}
    errors = sorted(Draft202012Validator(strict).iter_errors(arguments),
                    key=lambda e: list(map(str, e.absolute_path)))
    if not errors:
        return
    error = errors[0]
    field = ".".join(str(p) for p in error.absolute_path)
    if not field:
        raise InvalidInputError(f"{tool}: {error.message}")
    prop = known.get(str(error.absolute_path[0]), {})
    options = prop.get("anyOf", [prop])
    expected = " or ".join(str(o.get("enum") or o.get("type", "value")) for o in options)
    raise InvalidInputError(f"{tool}: argument {field!r} must be {expected}, got "
                            f"{_describe_json(error.instance)}")


def _strict_tools(server: Any, tool_error: type[Exception]) -> None:
    """Check every call's arguments with :func:`check_arguments` before the SDK runs the tool
    (the SDK itself ignores unknown arguments and converts ``true`` to ``1``)."""
    original = server.call_tool
    schemas: dict[str, dict[str, Any]] = {}

    async def call_tool(name: str, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        if not schemas:
            for tool in await server.list_tools():
                schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None)
                schemas[tool.name] = dict(schema or {})
        if name in schemas:
            try:
                check_arguments(name, dict(arguments or {}), schemas[name])
            except InvalidInputError as exc:
                logger.info("mcp tool %s refused arguments: %s", name, exc)
                raise tool_error(f"{type(exc).__name__}: {exc}") from exc
        return await original(name, arguments, *args, **kwargs)

    server.call_tool = call_tool


def _item(item: Any) -> dict[str, Any]:
    data = item.model_dump(mode="json", exclude={"metadata", "node_ids"})
    data["path"] = [f"{s['action']}->{s['node']}:{s['id']}" for s in data.get("path", [])]
    return data


class MemoryHolder:
    """Opens the facade once (thread-safe) and keeps it: the connection and the embedding model
    are loaded on first use and reused by every call."""

    def __init__(self, namespace: str, opener: Callable[[str], GraphMemory] | None = None):
        self.namespace = validate_namespace(namespace)
        self._opener = opener
        self._memory: GraphMemory | None = None
        self._lock = threading.Lock()

    def get(self) -> GraphMemory:
        with self._lock:
            if self._memory is None:
                if self._opener is not None:
                    self._memory = self._opener(self.namespace)
                else:
                    from graphmem.facade import GraphMemory

                    self._memory = GraphMemory.from_settings(namespace=self.namespace,
                                                             migrate=True)
                logger.info("mcp: opened namespace %r", self.namespace)
            return self._memory

    def close(self) -> None:
        with self._lock:
            if self._memory is not None:
                self._memory.close()
                self._memory = None


def build_server(namespace: str, opener: Callable[[str], GraphMemory] | None = None) -> Any:
    """The MCP server object (not started) for ``namespace``.

    Raises:
        InvalidInputError: a bad namespace. ConfigurationError: the ``mcp`` package is missing.
    """
    server_cls, tool_error = _sdk()
    holder = MemoryHolder(namespace, opener)
    # the SDK configures the root logger at construction: WARNING unless graphmem's own
    # logger was asked for more (``graphmem -v mcp``), so a client's stderr stays quiet
    quiet = logging.getLogger("graphmem").getEffectiveLevel() > logging.INFO
    server = server_cls("graphmem", instructions=(
        f"Long-term graph memory (namespace {holder.namespace!r}). Call remember for facts "
        "worth keeping, recall before answering, feedback when a task ends."),
        log_level="WARNING" if quiet else "INFO")

    async def call(fn: Callable[[GraphMemory], Any]) -> Any:
        try:
            return await asyncio.to_thread(lambda: fn(holder.get()))
        except GraphmemError as exc:
            logger.info("mcp tool error: %s: %s", type(exc).__name__, exc)
            raise tool_error(f"{type(exc).__name__}: {exc}") from exc
        except PydanticValidationError as exc:  # an input model not converted below the facade
            text = describe_validation_error(exc)
            logger.info("mcp tool error: InvalidInputError: %s", text)
            raise tool_error(f"InvalidInputError: {text}") from exc

    @server.tool(description="Store one message in long-term memory; give message_id to make "
                             "re-sending it a no-op. timestamp: ISO 8601 (default: now).")
    async def remember(content: str, role: str = "user", message_id: str | None = None,
                       conversation_id: str = "default",
                       timestamp: str | None = None) -> dict[str, Any]:
        message = {"role": role, "content": content, "id": message_id, "timestamp": timestamp}

        def run(mem: GraphMemory) -> dict[str, Any]:
            reports = mem.add([message], conversation_id=conversation_id)
            return {"conversation_id": conversation_id,
                    "created": {n: r.created for n, r in reports.items()},
                    "skipped": {n: r.skipped for n, r in reports.items()}}
        return await call(run)

    @server.tool(description="Recall what memory holds about a query: items best first, each "
                             "with the memory and graph path that found it and its source ids. "
                             + WINDOW_HELP)
    async def recall(query: str, k: int = DEFAULT_K, since: str | None = None,
                     until: str | None = None, as_of: str | None = None,
                     include_archived: bool = False) -> dict[str, Any]:
        def run(mem: GraphMemory) -> dict[str, Any]:
            start, end, when = check_as_of(since, until, as_of)
            result = mem.recall(query, k, since=start, until=end, as_of=when,
                                include_archived=include_archived)
            return {"query": query, "items": [_item(i) for i in result.items]}
        return await call(run)

    @server.tool(description="Recall states (what is true now, what was true before) and the "
                             "events behind them from state memory. " + WINDOW_HELP)
    async def recall_state(query: str, k: int = DEFAULT_K, since: str | None = None,
                           until: str | None = None,
                           as_of: str | None = None,
                           include_archived: bool = False) -> dict[str, Any]:
        def run(mem: GraphMemory) -> dict[str, Any]:
            start, end, when = check_as_of(since, until, as_of)
            result = mem.state.recall(query, k, since=start, until=end, as_of=when,
                                      include_archived=include_archived)
            return {"query": query, "items": [_item(i) for i in result.items]}
        return await call(run)

    @server.tool(description="Report how a task ended (status resolved or failed), optionally "
                             "with the actions taken, so later tasks learn from it.")
    async def feedback(task: str, status: Literal["resolved", "failed"],
                       trajectory: list[str] | None = None) -> dict[str, Any]:
        def run(mem: GraphMemory) -> dict[str, Any]:
            outcome = mem.feedback(task, status, trajectory=trajectory)
            insight = outcome.insight
            return {"task": task, "status": status, "insight_created": insight.created,
                    "added_insight_id": insight.added_insight_id,
                    "experience_created": None if outcome.experience is None
                    else outcome.experience.created}
        return await call(run)

    @server.tool(description="Recall past tasks similar to a task, with the decisions and "
                             "insights learned from them.")
    async def recall_experience(task: str, k: int = DEFAULT_K) -> dict[str, Any]:
        def run(mem: GraphMemory) -> dict[str, Any]:
            result = mem.experience.recall(task, k)
            return {"task": task, "items": [_item(i) for i in result.items]}
        return await call(run)

    @server.tool(description="Forget messages for good, with everything derived from them, in "
                             "every memory: give message_ids, a conversation_id and/or a speaker "
                             "(all given must match; at least one). Returns the counts removed "
                             "and the audit record id; forgetting again removes nothing.")
    async def forget(message_ids: list[str] | None = None, conversation_id: str | None = None,
                     speaker: str | None = None) -> dict[str, Any]:
        def run(mem: GraphMemory) -> dict[str, Any]:
            report = mem.forget(message_ids=message_ids, conversation_id=conversation_id,
                                speaker=speaker, actor="mcp")
            return report.model_dump(exclude={"dry_run"})
        return await call(run)

    _memory_tool(server, call)
    _strict_tools(server, tool_error)
    server._graphmem_holder = holder  # for closing and for tests
    return server


def _memory_tool(server: Any, call: Callable[[Callable[[GraphMemory], Any]], Any]) -> None:
    """Add ``recall_memory(memory, query, k)``: any registered memory's own recall, its
    description naming the memories registered now (installed packages' included)."""
    from graphmem.memory_registry import MEMORY_REGISTRY, load_entry_points

    load_entry_points()
    listing = "; ".join(f"{spec.name}: {spec.summary}" if spec.summary else spec.name
                        for spec in MEMORY_REGISTRY.values())

    @server.tool(description="Recall from one memory by name, with that memory's own recall: "
                             "items best first with their scores and source ids. memory: one of "
                             + listing)
    async def recall_memory(memory: str, query: str, k: int = DEFAULT_K) -> dict[str, Any]:
        def run(mem: GraphMemory) -> dict[str, Any]:
            result = mem.memory(memory).recall(query, k)
            return {"memory": memory, "query": query, "items": [_item(i) for i in result.items]}
        return await call(run)


def serve(namespace: str) -> None:
    """Serve ``namespace`` over stdio until the client disconnects.

    Raises:
        InvalidInputError: a bad namespace. ConfigurationError: ``mcp`` is not installed.
    """
    server = build_server(namespace)
    logger.info("mcp: serving namespace %r over stdio (tools: %s)", namespace, ", ".join(TOOL_NAMES))
    try:
        server.run("stdio")
    finally:
        server._graphmem_holder.close()

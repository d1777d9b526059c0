"""Online writes for agents: messages as they arrive (:func:`add_messages`) and task outcomes
(:func:`record_feedback`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from graphmem.agent.messages import parse_messages, to_conversation
from graphmem.errors import InvalidInputError, TrajectoryError
from graphmem.memory import IngestReport, RecallItem, memory_spec

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: Memories whose ``ingest`` takes conversations (the ones ``add`` can write).
CONVERSATION_MEMORIES = ("state", "associative")
#: Default memories of ``add``.
DEFAULT_ADD_MEMORIES = ("state", "associative")


def _native(value: Any) -> datetime | None:
    return value.to_native() if hasattr(value, "to_native") else value


def _last_time(mem: GraphMemory, conversation_id: str, names: Sequence[str]) -> datetime | None:
    """The time of the conversation's latest stored message (this facade's cache, else one
    read of state memory's latest event), for messages without a timestamp."""
    cache = mem._last_message_time
    if conversation_id in cache:
        return cache[conversation_id]
    if "state" in names:
        rows = mem.runner.read("state/last_event", namespace=mem.namespace,
                               conversation=conversation_id)
        if rows:
            return _native(rows[0]["occurred_at"])
    return None


def add_messages(mem: GraphMemory, messages: Any, *, conversation_id: str = "default",
                 session_id: str | None = None,
                 memories: Sequence[str] = DEFAULT_ADD_MEMORIES) -> dict[str, IngestReport]:
    """Write ``messages`` (see :mod:`graphmem.agent.messages`) into each of ``memories``; one
    write transaction per memory (state memory adds its derived RELATED_EVENT edges after it).

    Returns:
        ``{memory: IngestReport}``; a message already stored (same id) counts in
        ``skipped["turn"]`` and creates nothing.
    Raises:
        InvalidInputError / EmptyTextError: malformed messages, a bad conversation id, a memory
            that does not take conversations (all before anything is written).
    """
    if isinstance(memories, str):
        memories = (memories,)
    names = list(dict.fromkeys(memories))
    if not names:
        raise InvalidInputError("memories is empty: name at least one of "
                                f"{', '.join(CONVERSATION_MEMORIES)}")
    for name in names:
        memory_spec(name)
        if name not in CONVERSATION_MEMORIES:
            raise InvalidInputError(f"memory {name!r} does not store conversation messages; use "
                                    f"one of {', '.join(CONVERSATION_MEMORIES)} (task outcomes "
                                    "go to feedback())")
    if session_id is not None and (not isinstance(session_id, str) or not session_id.strip()):
        raise InvalidInputError(f"session_id must be a non-empty string or None, got {session_id!r}")
    parsed = parse_messages(messages)
    last = (_last_time(mem, conversation_id, names)
            if any(m.timestamp is None for m in parsed) else None)
    conversation = to_conversation(parsed, conversation_id, session_id, last)
    reports = {}
    for name in names:
        reports[name] = mem.memory(name).ingest([conversation])
    mem._data_memories = None
    mem._last_message_time[conversation_id] = max(
        t.timestamp for t in conversation.turns)
    logger.info("add %d messages to %s/%s: %s", len(parsed), mem.namespace, conversation_id,
                {n: r.created for n, r in reports.items()})
    return reports


class TaskFeedback(BaseModel):
    """What :func:`record_feedback` wrote.

    Attributes:
        insight: insight memory's :class:`~graphmem.insight.models.FeedbackResult`.
        experience: experience memory's ingest report of the trajectory, None without one.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    insight: Any
    experience: IngestReport | None = None


def _trajectory(task: str, status: str, trajectory: Any) -> Any:
    """An experience :class:`~graphmem.experience.trajectories.Trajectory` of ``task``: the
    model itself, a dict of one, or a list of actions (strings, or dicts with ``action`` and
    ``observation``); reward 1.0 when resolved, else 0.0."""
    from graphmem.experience.trajectories import Trajectory, TrajectoryStep

    if isinstance(trajectory, Trajectory):
        return trajectory
    if isinstance(trajectory, dict):
        return Trajectory.model_validate({"task_id": task, "query": task,
                                          "reward": 1.0 if status == "resolved" else 0.0,
                                          **trajectory})
    if isinstance(trajectory, str) or not isinstance(trajectory, Sequence):
        raise TrajectoryError("trajectory must be a Trajectory, a dict of one or a list of "
                              f"actions, got {type(trajectory).__name__}")
    steps = []
    for i, step in enumerate(trajectory):
        if isinstance(step, str):
            step = {"action": step, "observation": ""}
        if not isinstance(step, dict) or not str(step.get("action") or "").strip():
            raise TrajectoryError(f"trajectory step {i}: needs a non-empty action, got {step!r}")
        steps.append(TrajectoryStep(action=str(step["action"]),
                                    observation=str(step.get("observation") or "")))
    if not steps:
        raise TrajectoryError("trajectory has no actions")
    return Trajectory(task_id=task, query=task, steps=steps,
                      reward=1.0 if status == "resolved" else 0.0, kind="expert",
                      source="feedback")


def _actions(trajectory: Any) -> list[str]:
    steps = getattr(trajectory, "steps", None)
    return [s.action for s in steps] if steps is not None else []


def record_feedback(mem: GraphMemory, task: str, status: str, *, trajectory: Any = None,
                    retrieved: Sequence[Any] | None = None) -> TaskFeedback:
    """Record a task's outcome: insight memory's feedback (evidence for or against the insights
    used, new insights), and with ``trajectory`` the task's actions into experience memory (a
    trajectory of the task, reward 1.0 resolved / 0.0 failed).

    Args:
        task: the task as the agent saw it (non-empty).
        status: ``"resolved"`` or ``"failed"``.
        trajectory: None, an experience ``Trajectory``, a dict of one, or a list of actions.
        retrieved: what was retrieved for the task: insight ids, or recall items (only
            insight memory's are used); None lets insight memory recall them itself.
    Raises:
        EmptyTextError, InvalidInputError (bad status), TrajectoryError — before anything is
            written — and the memories' own errors.
    """
    if status not in ("resolved", "failed"):
        raise InvalidInputError(f"status must be 'resolved' or 'failed', got {status!r}")
    built = _trajectory(task, status, trajectory) if trajectory is not None else None
    ids = None
    if retrieved is not None:
        ids = [r if isinstance(r, str) else r.id for r in retrieved
               if isinstance(r, str) or (isinstance(r, RecallItem) and r.memory == "insight")]
    result = mem.insight.feedback(task, status, _actions(built), ids)
    report = mem.experience.ingest([built]) if built is not None else None
    mem._data_memories = None
    logger.info("feedback %s on %r: insight %s, experience %s", status, task[:60],
                result.created, None if report is None else report.created)
    return TaskFeedback(insight=result, experience=report)

"""Online writes for agents: messages as they arrive (:func:`add_messages`) and task outcomes
(:func:`record_feedback`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from graphmem.agent.messages import Message, to_conversation, validate_messages
from graphmem.conversations import Conversation, validate_conversation
from graphmem.errors import InvalidInputError, PartialWriteError, TrajectoryError
from graphmem.instrumentation import traced
from graphmem.llm import usage_totals
from graphmem.memory import IngestReport, RecallItem, memory_spec, message_memories
from graphmem.names import MAX_KEY_BYTES
from graphmem.validation import validate_model, validate_text

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

def _last_time(mem: GraphMemory, conversation_id: str, names: Sequence[str]) -> datetime | None:
    """The time of the conversation's latest stored message (this facade's cache, else the
    first target memory that tells: :meth:`graphmem.memory.Memory.last_message_time`), for
    messages without a timestamp."""
    cache = mem._last_message_time
    if conversation_id in cache:
        return cache[conversation_id]
    for name in names:
        found = mem.memory(name).last_message_time(conversation_id)
        if found is not None:
            return found
    return None


def _check_memories(memories: Sequence[str] | str | None) -> list[str]:
    """The distinct memory names of ``memories`` (None: every memory that stores messages,
    :func:`graphmem.memory.message_memories`) if each stores conversation messages."""
    takers = message_memories()
    if memories is None:
        return list(takers)
    if isinstance(memories, str):
        memories = (memories,)
    if not isinstance(memories, Sequence):
        raise InvalidInputError(f"memories must be a list of memory names, got {memories!r}")
    names = list(dict.fromkeys(memories))
    if not names:
        raise InvalidInputError("memories is empty: name at least one of "
                                f"{', '.join(takers)}")
    for name in names:
        memory_spec(name)
        if name not in takers:
            raise InvalidInputError(f"memory {name!r} does not store conversation messages; use "
                                    f"one of {', '.join(takers)} (task outcomes go to "
                                    "feedback())")
    return names


def _precheck(mem: GraphMemory, conversation: Conversation, names: Sequence[str]) -> None:
    """Run every target memory's own input checks (pure:
    :meth:`graphmem.memory.Memory.check_conversation`) before the first write, so that no
    memory refuses what another has already stored."""
    validate_conversation(conversation)
    for name in names:
        mem.memory(name).check_conversation(conversation)


def final_messages(conversation: Conversation) -> list[Message]:
    """The conversation's turns as messages with their final ids and timestamps (what a
    :class:`~graphmem.errors.PartialWriteError` carries to re-send)."""
    return [Message(role=t.speaker, content=t.text, id=t.source_id, timestamp=t.timestamp,
                    meta=dict(t.meta), message_json=getattr(t, "message_json", None))
            for t in conversation.turns]


def _add_attributes(reports: dict[str, IngestReport]) -> dict[str, Any]:
    """The ``graphmem.add`` span's attributes: messages read, memories written, created."""
    return {"messages": max((r.inputs for r in reports.values()), default=0),
            "memories": list(reports),
            "created": sum(sum(r.created.values()) for r in reports.values())}


@traced("graphmem.add", _add_attributes)
def add_messages(mem: GraphMemory, messages: Any, *, conversation_id: str = "default",
                 session_id: str | None = None,
                 memories: Sequence[str] | None = None) -> dict[str, IngestReport]:
    """Write ``messages`` (see :mod:`graphmem.agent.messages`) into each of ``memories`` (None:
    every registered memory that stores messages, :func:`graphmem.memory.message_memories`);
    one write transaction per memory (state memory adds its derived RELATED_EVENT edges after
    it).

    Every field of every message is checked for every target memory before the first write
    (:func:`graphmem.agent.messages.validate_messages`, then each memory's own pure checks).

    Returns:
        ``{memory: IngestReport}``; a message already stored (same id) counts in
        ``skipped["turn"]`` and creates nothing.
    Raises:
        InvalidInputError / EmptyTextError: malformed messages, a bad conversation or session
            id, a memory that does not take conversations (all before anything is written).
        PartialWriteError: memory N failed after memories 1..N-1 committed (``stored`` /
            ``missing`` name them, ``__cause__`` is the failure); ``mem.add(err.messages,
            conversation_id=err.conversation_id, session_id=err.session_id)`` completes the
            write (stored ids are skipped).
        The first memory's own errors (DatabaseError, ControllerError) when nothing was stored.
    """
    names = _check_memories(memories)
    parsed = validate_messages(messages, conversation_id, session_id)
    last = (_last_time(mem, conversation_id, names)
            if any(m.timestamp is None for m in parsed) else None)
    conversation = to_conversation(parsed, conversation_id, session_id, last)
    _precheck(mem, conversation, names)
    reports: dict[str, IngestReport] = {}
    try:
        for name in names:
            try:
                reports[name] = mem.memory(name).ingest([conversation])
            except Exception as exc:
                if not reports:
                    raise
                stored = list(reports)
                missing = [n for n in names if n not in reports]
                logger.warning("add to %s/%s: %s failed after %s committed: %s", mem.namespace,
                               conversation_id, name, stored, exc)
                raise PartialWriteError(
                    f"{len(parsed)} messages of conversation {conversation_id!r} are stored in "
                    f"{', '.join(stored)} but not in {', '.join(missing)}: {name} failed with "
                    f"{type(exc).__name__}: {exc}. Re-send err.messages with the same "
                    "conversation_id and session_id to complete the write (stored ids are "
                    "skipped)",
                    stored=stored, missing=missing, messages=final_messages(conversation),
                    conversation_id=conversation_id, session_id=session_id) from exc
    finally:
        if reports:
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


def task_key(task: str) -> str:
    """The experience task id of a feedback ``task``: the task itself when it fits an indexed
    key (:data:`~graphmem.names.MAX_KEY_BYTES`), else ``"task:<sha1 of the task>"`` (so a long
    task is stored, and re-recording it hits the same node)."""
    if len(task.encode("utf-8")) <= MAX_KEY_BYTES:
        return task
    import hashlib

    return "task:" + hashlib.sha1(task.encode("utf-8")).hexdigest()


def _trajectory(task: str, status: str, trajectory: Any) -> Any:
    """An experience :class:`~graphmem.experience.trajectories.Trajectory` of ``task``: the
    model itself, a dict of one, or a list of actions (strings, or dicts with ``action`` and
    ``observation``); reward 1.0 when resolved, else 0.0.

    Raises:
        TrajectoryError: not one of those, no actions, or a bad field (an empty or too long
            action, observation or query; naming the step and the value).
    """
    from graphmem.experience.trajectories import Trajectory

    reward = 1.0 if status == "resolved" else 0.0
    if isinstance(trajectory, Trajectory):
        return validate_model(Trajectory, trajectory.model_dump(), "trajectory", TrajectoryError)
    if isinstance(trajectory, dict):
        return validate_model(Trajectory, {"task_id": task_key(task), "query": task,
                                           "reward": reward, **trajectory},
                              "trajectory", TrajectoryError)
    if isinstance(trajectory, str) or not isinstance(trajectory, Sequence):
        raise TrajectoryError("trajectory must be a Trajectory, a dict of one or a list of "
                              f"actions, got {type(trajectory).__name__}")
    steps = []
    for i, step in enumerate(trajectory):
        if isinstance(step, str):
            step = {"action": step, "observation": ""}
        if not isinstance(step, dict) or not isinstance(step.get("action"), str) \
                or not step["action"].strip():
            raise TrajectoryError(f"trajectory step {i}: needs a non-empty action text, got "
                                  f"{str(step)[:80]!r}")
        observation = step.get("observation")
        steps.append({"action": step["action"],
                      "observation": "" if observation is None else observation})
    if not steps:
        raise TrajectoryError("trajectory has no actions: give at least one action")
    return validate_model(Trajectory, {"task_id": task_key(task), "query": task, "steps": steps,
                                       "reward": reward, "kind": "expert",
                                       "source": "feedback"}, "trajectory", TrajectoryError)


def _actions(trajectory: Any) -> list[str]:
    steps = getattr(trajectory, "steps", None)
    return [s.action for s in steps] if steps is not None else []


def _feedback_attributes(feedback: TaskFeedback) -> dict[str, Any]:
    """The ``graphmem.feedback`` span's attributes: status, decisions, created, LLM use."""
    insight, experience = feedback.insight, feedback.experience
    created = sum(insight.created.values()) + (
        sum(experience.created.values()) if experience is not None else 0)
    calls, tokens_in, tokens_out = usage_totals(insight.llm_usage)
    return {"status": insight.status, "decisions": len(insight.decisions), "created": created,
            "trajectory": experience is not None, "llm_calls": calls,
            "llm_tokens": tokens_in + tokens_out}


@traced("graphmem.feedback", _feedback_attributes)
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
        EmptyTextError, InvalidInputError (bad status, a task over ``MAX_TEXT_CHARS``),
            TrajectoryError (an action over ``MAX_ACTION_CHARS``, an observation over
            ``MAX_TEXT_CHARS``, ...) — all before anything is written, each naming the value —
            and the memories' own errors.
        PartialWriteError: insight memory committed the feedback, then experience memory's
            write failed; ``err.trajectory`` is what ``mem.experience.ingest([...])`` needs to
            complete it.
    """
    validate_text(task, "task")
    if status not in ("resolved", "failed"):
        raise InvalidInputError(f"status must be 'resolved' or 'failed', got {status!r}")
    built = _trajectory(task, status, trajectory) if trajectory is not None else None
    ids = None
    if retrieved is not None:
        ids = [r if isinstance(r, str) else r.id for r in retrieved
               if isinstance(r, str) or (isinstance(r, RecallItem) and r.memory == "insight")]
    result = mem.insight.feedback(task, status, _actions(built), ids)
    mem._data_memories = None
    try:
        report = mem.experience.ingest([built]) if built is not None else None
    except Exception as exc:
        logger.warning("feedback on %r: experience failed after insight committed: %s",
                       task[:60], exc)
        raise PartialWriteError(
            f"the feedback on task {task[:80]!r} is stored in insight but its trajectory is "
            f"not stored in experience: {type(exc).__name__}: {exc}. Complete it with "
            "mem.experience.ingest([err.trajectory]) (re-sending the feedback would count its "
            "evidence twice)", stored=["insight"], missing=["experience"],
            trajectory=built) from exc
    logger.info("feedback %s on %r: insight %s, experience %s", status, task[:60],
                result.created, None if report is None else report.created)
    return TaskFeedback(insight=result, experience=report)

"""Trajectory input (EMG section 4.1.1): ScienceWorld gold JSONL, ALFWorld expert ``gt_traj.json``
and a generic JSON/JSONL format. Bad records raise a typed error naming the record and line.

Generic format (one object per JSONL line, or a JSON list of such objects)::

    {"task_id": "t1",                      # optional; default "<file stem>:<line>"
     "query": "put a clean apple on the table",
     "initial_observation": "You are in the kitchen ...",   # optional, default ""
     "steps": [{"action": "go to sink 1", "observation": "You arrive at sink 1."}, ...],
     "reward": 1.0,                        # in [0, 1]
     "task_type": "pick_clean_then_place", # optional
     "grammar": "alfworld"}                # optional: scienceworld | alfworld | generic

ScienceWorld records (``sciworld_gold_*.jsonl``) use ``id``, ``task_name``, ``task_description``,
``initial_observation``, ``steps[{action, observation, score}]``, ``final_score`` (0..100).

Limits (documented in :mod:`graphmem.validation`, checked before anything is written): an action
is non-blank text of at most ``MAX_ACTION_CHARS`` characters; every observation and the initial
observation at most ``MAX_TEXT_CHARS`` characters; all valid Unicode (the query's limit is
checked where it is embedded, before any write). Every reader refuses a score that is NaN or infinite
(:func:`graphmem.experience.scores.check_finite_scores`) and a task id that cannot be an indexed
key (:func:`graphmem.names.check_key`: at most ``MAX_KEY_BYTES`` UTF-8 bytes) before anything
is built from the record.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from graphmem.errors import InputFormatError, InvalidInputError, TrajectoryError
from graphmem.experience.scores import check_finite_scores
from graphmem.names import check_key
from graphmem.validation import MAX_ACTION_CHARS, MAX_TEXT_CHARS, validate_text

logger = logging.getLogger(__name__)


def _limited(value: str, what: str, limit: int, name: str) -> str:
    """``value`` if at most ``limit`` characters of valid Unicode (may be empty), else a
    ValueError naming ``what`` and the limit (pydantic reports it on the field)."""
    if value == "":
        return value
    try:
        validate_text(value if value.strip() else "x", what, max_chars=limit, limit_name=name)
    except InvalidInputError as exc:
        raise ValueError(str(exc)) from None
    return value


class TrajectoryStep(BaseModel):
    """One step ``(a_t, o_t)``: the action and the observation it produced; ``score`` is the
    environment's running score after the step when known (ScienceWorld: 0..100)."""

    model_config = ConfigDict(extra="ignore")
    action: str = Field(min_length=1)
    observation: str
    score: float | None = None

    @field_validator("action")
    @classmethod
    def _non_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("action is blank")
        return _limited(value, "action", MAX_ACTION_CHARS, "MAX_ACTION_CHARS")

    @field_validator("observation")
    @classmethod
    def _observation(cls, value: str) -> str:
        return _limited(value, "observation", MAX_TEXT_CHARS, "MAX_TEXT_CHARS")


class Trajectory(BaseModel):
    """``tau = (q, o_0, a_1, o_1, ..., a_m, o_m)`` with reward ``r`` in [0, 1] (EMG eq. 1, Alg. 1).

    ``task_id`` is the natural key (deterministic node ids); ``task_type`` e.g. ScienceWorld's
    ``task_name``; ``kind`` is ``"expert"`` or ``"exploration"``.
    """

    model_config = ConfigDict(extra="ignore")
    task_id: str = Field(min_length=1)
    query: str = Field(min_length=1)
    initial_observation: str = ""
    steps: list[TrajectoryStep] = Field(min_length=1)
    reward: float = Field(ge=0.0, le=1.0)
    task_type: str = ""
    grammar: Literal["scienceworld", "alfworld", "generic"] = "generic"
    kind: Literal["expert", "exploration"] = "expert"
    source: str = ""

    @field_validator("task_id")
    @classmethod
    def _task_id_key(cls, value: str) -> str:
        try:
            return check_key("task_id", value)
        except InvalidInputError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("query")
    @classmethod
    def _query_non_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query is blank")
        return value

    @field_validator("initial_observation")
    @classmethod
    def _initial_observation(cls, value: str) -> str:
        return _limited(value, "initial_observation", MAX_TEXT_CHARS, "MAX_TEXT_CHARS")


def _fail(path: Path | str, line: int, record: Any, error: Exception | str) -> TrajectoryError:
    name = record.get("id") or record.get("task_id") if isinstance(record, dict) else None
    return TrajectoryError(f"{path}:{line}: bad trajectory record {name!r}: {error}")


def _validate(payload: dict[str, Any], path: Path | str, line: int, raw: Any) -> Trajectory:
    try:
        return Trajectory.model_validate(payload)
    except PydanticValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg'].removeprefix('Value error, ')}"
            for e in exc.errors(include_url=False)[:3]
        )
        raise _fail(path, line, raw, problems) from None


def _jsonl_records(path: Path) -> Iterator[tuple[int, Any]]:
    number = 0
    try:
        with path.open(encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise InputFormatError(f"{path}:{number}: malformed JSON: {exc.msg}") from None
                except RecursionError:
                    raise InputFormatError(f"{path}:{number}: JSON nested too deeply") from None
                yield number, record
    except UnicodeDecodeError as exc:
        raise InputFormatError(f"{path}:{number + 1}: not UTF-8 text ({exc.reason})") from None
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise InputFormatError(f"{path}: cannot read: {exc.strerror}") from None


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputFormatError(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from None
    except RecursionError:
        raise InputFormatError(f"{path}:1: JSON nested too deeply") from None
    except UnicodeDecodeError as exc:
        raise InputFormatError(f"{path}:1: not UTF-8 text ({exc.reason})") from None
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise InputFormatError(f"{path}: cannot read: {exc.strerror}") from None


def as_trajectory(value: Any, position: int = 0) -> Trajectory:
    """A :class:`Trajectory` from a Trajectory or a dict of its fields (API input).

    Raises:
        TrajectoryError: not a trajectory, no actions, or a bad field; names the task id and the
            position in the argument list.
    """
    if isinstance(value, Trajectory):
        return value
    if not isinstance(value, dict):
        raise _fail("<argument>", position, value,
                    f"expected a Trajectory or a dict, got {type(value).__name__}")
    check_finite_scores(value, f"<argument>:{position}")
    if not value.get("steps"):
        raise _fail("<argument>", position, value, "no actions (steps is empty or missing)")
    return _validate(value, "<argument>", position, value)


def scienceworld_record(record: Any, path: Path | str = "<memory>", line: int = 0,
                        kind: str = "expert") -> Trajectory:
    """One ScienceWorld record (gold JSONL or our exploration JSONL) as a :class:`Trajectory`.

    The reward is ``final_score / 100`` (or the last step's score). Raises TrajectoryError.
    """
    check_finite_scores(record, f"{path}:{line}")
    if not isinstance(record, dict):
        raise _fail(path, line, record, f"expected an object, got {type(record).__name__}")
    for field in ("id", "task_description", "steps"):
        if field not in record:
            raise _fail(path, line, record, f"missing field {field!r}")
    steps = record["steps"]
    if not isinstance(steps, list) or not steps:
        raise _fail(path, line, record, "no actions (steps is empty or not a list)")
    score = record.get("final_score")
    if score is None:
        last = steps[-1] if isinstance(steps[-1], dict) else {}
        score = last.get("score", 0)
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise _fail(path, line, record, f"final_score is not a number: {score!r}")
    try:
        reward = min(max(float(score) / 100.0, 0.0), 1.0)
    except OverflowError:
        raise _fail(path, line, record, f"final_score is out of range: {score!r}") from None
    payload = {
        "task_id": str(record["id"]),
        "query": record["task_description"],
        "initial_observation": record.get("initial_observation", ""),
        "steps": steps,
        "reward": reward,
        "task_type": record.get("task_name", ""),
        "grammar": "scienceworld",
        "kind": record.get("kind", kind),
        "source": f"{Path(str(path)).name}:{line}",
    }
    return _validate(payload, path, line, record)


def read_scienceworld(path: str | Path, limit: int | None = None,
                      kind: str = "expert") -> list[Trajectory]:
    """Read a ScienceWorld JSONL (gold ``sciworld_gold_{train,dev}.jsonl`` or explorations).

    Raises:
        InputFormatError: a malformed JSON line (names file and line).
        TrajectoryError: a record without actions, missing fields, wrong types (names it and line).
    """
    path = Path(path)
    out: list[Trajectory] = []
    for line, record in _jsonl_records(path):
        out.append(scienceworld_record(record, path, line, kind))
        if limit is not None and len(out) >= limit:
            break
    return out


def alfworld_record(turns: Any, path: Path | str, task_id: str) -> Trajectory:
    """One ALFWorld ``gt_traj.json`` (alternating human observation / gpt action turns).

    The query is the text after ``"Your task is to:"`` in the first turn; expert reward 1.
    Raises TrajectoryError (names the file).
    """
    if not isinstance(turns, list) or not turns:
        raise _fail(path, 1, {"id": task_id}, "expected a non-empty list of turns")
    try:
        first = turns[0]["value"]
        if not isinstance(first, str):
            raise ValueError(f"turn 0 value is {type(first).__name__}, not text")
        steps = []
        for i in range(1, len(turns), 2):
            if turns[i].get("from") != "gpt":
                raise ValueError(f"turn {i} is not an action")
            obs = turns[i + 1]["value"] if i + 1 < len(turns) else ""
            steps.append({"action": turns[i]["value"], "observation": obs})
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise _fail(path, 1, {"id": task_id}, f"malformed turns: {exc}") from None
    query = first.split("Your task is to:", 1)[-1].strip().rstrip(".") if "Your task is to:" in first else ""
    observation = first.split("Your task is to:", 1)[0].strip()
    payload = {"task_id": task_id, "query": query, "initial_observation": observation,
               "steps": steps, "reward": 1.0, "task_type": task_id.split("-", 1)[0],
               "grammar": "alfworld", "kind": "expert", "source": str(path)}
    return _validate(payload, path, 1, {"id": task_id})


def read_alfworld(root: str | Path, limit: int | None = None) -> list[Trajectory]:
    """Read ALFWorld expert trajectories: every ``<task>/<trial>/gt_traj.json`` below ``root``
    (sorted), task id ``"<task>/<trial>"``. Raises InputFormatError / TrajectoryError."""
    root = Path(root)
    files = [root] if root.is_file() else sorted(root.rglob("gt_traj.json"))
    out = []
    for file in files:
        turns = _load_json(file)
        task_id = f"{file.parent.parent.name}/{file.parent.name}"
        out.append(alfworld_record(turns, file, task_id))
        if limit is not None and len(out) >= limit:
            break
    return out


def generic_record(record: Any, path: Path | str, line: int) -> Trajectory:
    """One record of the generic format (see the module docstring). Raises TrajectoryError."""
    check_finite_scores(record, f"{path}:{line}")
    if not isinstance(record, dict):
        raise _fail(path, line, record, f"expected an object, got {type(record).__name__}")
    payload = dict(record)
    payload.setdefault("task_id", f"{Path(str(path)).stem}:{line}")
    payload.setdefault("source", f"{Path(str(path)).name}:{line}")
    if not payload.get("steps"):
        raise _fail(path, line, record, "no actions (steps is empty or missing)")
    return _validate(payload, path, line, record)


def read_generic(path: str | Path, limit: int | None = None) -> list[Trajectory]:
    """Read the generic JSON (a list) or JSONL format. Raises InputFormatError / TrajectoryError."""
    path = Path(path)
    if path.suffix == ".json":
        data = _load_json(path)
        if not isinstance(data, list):
            raise InputFormatError(f"{path}:1: expected a JSON list of trajectories")
        records = list(enumerate(data, start=1))
    else:
        records = list(_jsonl_records(path))
    out = [generic_record(r, path, n) for n, r in records]
    return out[:limit] if limit is not None else out


def read_trajectories(path: str | Path, limit: int | None = None,
                      kind: str = "expert") -> list[Trajectory]:
    """Read any supported input, detected from the content: a directory or ``gt_traj.json`` is
    ALFWorld; a JSONL whose first record has ``task_description`` is ScienceWorld; else generic.

    Raises:
        InputFormatError: unreadable or malformed file (names file and line).
        TrajectoryError: a bad record (names record and line).
    """
    path = Path(path)
    if not path.exists():
        raise InputFormatError(f"{path}: no such file or directory")
    if path.is_dir() or path.name == "gt_traj.json":
        return read_alfworld(path, limit)
    if path.suffix == ".jsonl":
        for _, first in _jsonl_records(path):
            if isinstance(first, dict) and "task_description" in first:
                return read_scienceworld(path, limit, kind=kind)
            break
    return read_generic(path, limit)

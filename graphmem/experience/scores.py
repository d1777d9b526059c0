"""Refuse non-finite numbers in trajectory records before they become rewards. Pure.

``json.loads`` accepts ``Infinity``, ``-Infinity`` and ``NaN``; a ScienceWorld record with
``"final_score": Infinity`` would otherwise be clamped to reward 1.0 (a perfect expert run) and a
step ``"score": NaN`` stored as is. :func:`check_finite_scores` is called by the trajectory
readers on each raw record, before it is turned into a :class:`Trajectory`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from graphmem.errors import TrajectoryError

#: Record fields holding a number that becomes (part of) the reward.
SCORE_FIELDS = ("final_score", "reward", "score")


def check_finite(value: Any, field: str) -> Any:
    """Return ``value`` unless it is a float that is NaN or infinite (non-numbers pass: the
    record's own validation types them).

    Raises:
        TrajectoryError: naming ``field`` and the value.
    """
    if isinstance(value, float) and not math.isfinite(value):
        raise TrajectoryError(f"{field} is {value!r}, not a finite number")
    return value


def check_finite_scores(record: Any, where: str) -> Any:
    """Check a raw trajectory record: its ``final_score``/``reward``/``score`` and every step's
    ``score`` must be finite when they are numbers. Returns ``record`` unchanged.

    Args:
        record: one decoded JSON record (anything else passes through unchecked).
        where: where it comes from, e.g. ``"data.jsonl:12 task 'boil-water'"``.
    Raises:
        TrajectoryError: naming ``where``, the field (``steps[3].score``) and the value.
    """
    if not isinstance(record, Mapping):
        return record
    for name in SCORE_FIELDS:
        if name in record:
            check_finite(record[name], f"{where}: {name}")
    steps = record.get("steps")
    if isinstance(steps, list):
        for i, step in enumerate(steps):
            if isinstance(step, Mapping):
                for name in SCORE_FIELDS:
                    if name in step:
                        check_finite(step[name], f"{where}: steps[{i}].{name}")
    return record

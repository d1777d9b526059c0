"""Heuristic insight text κ̂ rendered from a resolved trajectory (used by the heuristic ADD of
eq. 12 when no LLM is configured). Pure; no I/O."""

from __future__ import annotations

import logging
from collections.abc import Sequence

logger = logging.getLogger(__name__)

MAX_STEPS = 8
MAX_STEP_CHARS = 120


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_insight(query: str, trajectory: Sequence[str], max_steps: int = MAX_STEPS) -> str:
    """κ̂ for a resolved task: the query and its resolving steps, as one sentence.

    Long trajectories keep their first ``max_steps - 2`` steps, an ellipsis and the last step
    (the final answer/action). Each step is whitespace-normalised and clipped to 120 characters.

    Raises:
        ValueError: an empty trajectory (nothing to distil).
    """
    steps = [_clip(s, MAX_STEP_CHARS) for s in trajectory if s.strip()]
    if not steps:
        raise ValueError("cannot render an insight from an empty trajectory")
    if len(steps) > max_steps:
        steps = steps[: max_steps - 2] + ["…", steps[-1]]
    return f'For tasks like "{_clip(query, 200)}", this resolved it: ' + " -> ".join(steps) + "."

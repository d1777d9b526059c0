"""Exploration trajectories from the real ScienceWorld simulator (EMG section 4.1.1).

The paper lets an LLM agent explore each training task once. As a stand-in for that agent, this
module runs a seeded **noisy-expert** policy in the real simulator (PyPI ``scienceworld``, a Java
jar): it follows the task's gold action path, but at each gold step, with probability ``epsilon``,
it either takes another valid action (half the time one with the same verb as the gold action,
e.g. focusing on the wrong object) and then continues, or skips the gold step. Observations,
scores and rewards come from the simulator, so the runs are real failures, partial successes and
successes. Same seed and input give the same runs (the simulator is deterministic for a task
variation; the valid-action list is sorted before sampling).

Output: JSONL, one record per run, in the gold format plus ``kind="exploration"``, ``epsilon``,
``seed``, ``seconds``; ``id`` is the gold record's id so the pair (exploration, expert) shares a
task key. Needs ``pip install 'graphmem[scienceworld]'`` and Java 17.
"""

from __future__ import annotations

import logging
import json
import random
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from graphmem.errors import ConfigurationError, InvalidInputError

logger = logging.getLogger(__name__)


def noisy_expert_episode(env: Any, record: dict[str, Any], epsilon: float, seed: int,
                         step_limit: int | None = None) -> dict[str, Any]:
    """Run one noisy-expert episode for one gold ``record`` in a loaded-capable ``env``
    (``scienceworld.ScienceWorldEnv``). Returns the exploration record (see module docstring).

    ``step_limit`` defaults to ``1.5 x`` the gold length + 5 actions.
    """
    began = time.perf_counter()
    rng = random.Random(f"{seed}:{record['id']}")
    env.load(record["task_name"], int(record["variation_idx"]), record.get("simplification", "easy"),
             generateGoldPath=False)
    observation, info = env.reset()
    gold = [s["action"] for s in record["steps"]]
    limit = step_limit or int(len(gold) * 1.5) + 5
    steps: list[dict[str, Any]] = []
    done = False
    score = 0
    i = 0
    while i < len(gold) and len(steps) < limit and not done:
        action = gold[i]
        if rng.random() < epsilon:
            if rng.random() < 0.5:
                i += 1  # skip this gold step
                continue
            valid = sorted(set(info.get("valid") or []) - {action})
            verb = action.split(" ")[0]
            same_verb = [a for a in valid if a.split(" ")[0] == verb]
            pool = same_verb if same_verb and rng.random() < 0.5 else valid
            if pool:
                action = rng.choice(pool)
            else:
                i += 1
        else:
            i += 1
        observation, _reward, done, info = env.step(action)
        score = int(info.get("score", 0))
        steps.append({"action": action, "observation": observation, "score": score})
    if not steps:  # every gold step was skipped: take the first gold action so the run is usable
        observation, _reward, done, info = env.step(gold[0])
        score = int(info.get("score", 0))
        steps.append({"action": gold[0], "observation": observation, "score": score})
    return {
        "id": record["id"], "split": record.get("split", ""), "task_name": record["task_name"],
        "variation_idx": record["variation_idx"], "simplification": record.get("simplification", "easy"),
        "task_description": record["task_description"],
        "initial_observation": record.get("initial_observation", ""),
        "steps": steps, "final_score": max(score, 0), "raw_final_score": score, "done": bool(done),
        "kind": "exploration", "epsilon": epsilon, "seed": seed,
        "seconds": round(time.perf_counter() - began, 3),
    }


def select_records(path: str | Path, per_task_type: int | None = None, limit: int | None = None,
                   ) -> list[dict[str, Any]]:
    """Gold records of a ScienceWorld JSONL, at most ``per_task_type`` per ``task_name`` (in file
    order, so the choice is deterministic) and ``limit`` in all."""
    counts: dict[str, int] = {}
    out = []
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            name = record.get("task_name", "")
            if per_task_type is not None and counts.get(name, 0) >= per_task_type:
                continue
            counts[name] = counts.get(name, 0) + 1
            out.append(record)
            if limit is not None and len(out) >= limit:
                break
    return out


def generate_explorations(records: Iterable[dict[str, Any]], out: str | Path, epsilon: float = 0.15,
                          seed: int = 0, max_seconds: float = 600.0,
                          progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Run :func:`noisy_expert_episode` for each record in ONE simulator and append the runs to
    ``out`` (JSONL; records already in ``out`` are skipped, so an interrupted run resumes).
    Stops starting new episodes after ``max_seconds`` (wall clock).

    Returns:
        ``{"written", "skipped", "seconds", "mean_episode_seconds", "stopped_early"}``.
    Raises:
        InvalidInputError: ``epsilon`` outside [0, 1].
        ConfigurationError: the ``scienceworld`` package is missing or the simulator (Java) fails
            to start; the message says why.
    """
    if not 0.0 <= epsilon <= 1.0:
        raise InvalidInputError(f"epsilon must be in [0, 1], got {epsilon!r}")
    try:
        from scienceworld import ScienceWorldEnv
    except ImportError as exc:
        raise ConfigurationError(
            "the ScienceWorld simulator is not installed: pip install 'graphmem[scienceworld]'"
        ) from exc
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done_ids = set()
    if out.exists():
        done_ids = {json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()
                    if line.strip()}
    began = time.perf_counter()
    try:
        env = ScienceWorldEnv("", envStepLimit=200)
    except Exception as exc:  # the JVM did not start
        raise ConfigurationError(f"the ScienceWorld simulator did not start (Java 17 needed): {exc}") from exc
    written = skipped = 0
    durations = []
    stopped = False
    try:
        with out.open("a", encoding="utf-8") as handle:
            for record in records:
                if record["id"] in done_ids:
                    skipped += 1
                    continue
                if time.perf_counter() - began > max_seconds:
                    stopped = True
                    break
                run = noisy_expert_episode(env, record, epsilon, seed)
                handle.write(json.dumps(run) + "\n")
                handle.flush()
                durations.append(run["seconds"])
                written += 1
                if progress:
                    progress(run)
    finally:
        env.close()
    return {"written": written, "skipped": skipped, "seconds": round(time.perf_counter() - began, 1),
            "mean_episode_seconds": round(sum(durations) / len(durations), 2) if durations else None,
            "stopped_early": stopped}

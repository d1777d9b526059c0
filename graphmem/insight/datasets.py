"""Real labelled task streams for the replay harness: FEVER claims and ScienceWorld gold
trajectories. Each task carries the outcome the dataset RECORDED (used as the feedback Ψ) and its
kind (the label or task type); nothing here runs an agent."""

from __future__ import annotations

import logging
import json
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from graphmem.errors import DataNotFoundError, InputFormatError, InvalidInputError
from graphmem.insight.models import Status

logger = logging.getLogger(__name__)

#: dataset name -> (path below the data root, how Ψ is read from the record)
DATASETS: dict[str, tuple[str, str]] = {
    "fever": ("fever/paper_dev.jsonl",
              "FEVER 'verifiable' field: VERIFIABLE (SUPPORTS/REFUTES) -> resolved, "
              "NOT VERIFIABLE (NOT ENOUGH INFO) -> failed; kind = label"),
    "scienceworld": ("scienceworld/sciworld_gold_dev.jsonl",
                     "ScienceWorld gold replay: final recorded score 100 -> resolved, else failed; "
                     "kind = task_name"),
}


class ReplayTask(BaseModel):
    """One task of a replayed stream: Q, the recorded Ψ, the recorded steps and its kind."""

    task_id: str
    query: str
    status: Status
    trajectory: list[str]
    kind: str


#: replay dataset name -> :data:`graphmem.datasets.DATASETS` key (bundled sample or full data)
_RESOLVE = {"fever": "fever", "scienceworld": "scienceworld_dev"}


def default_data_root() -> Path:
    """``GRAPHMEM_DATA`` if set, else the bundled samples folder (:mod:`graphmem.datasets`).

    Raises:
        DataNotFoundError: ``GRAPHMEM_DATA`` names a folder that does not exist.
    """
    from graphmem.datasets import ENV_VAR, bundled_root, data_dir_from_env

    root = data_dir_from_env()
    if root is None:
        return bundled_root()
    if not root.is_dir():
        raise DataNotFoundError(f"data folder {root} (from {ENV_VAR}) does not exist: fix "
                                f"{ENV_VAR}=DIR, or unset it to use the bundled samples")
    return root


def dataset_path(dataset: str, data_root: Path | None = None) -> Path:
    """The file of replay dataset ``dataset`` (``"fever"`` or ``"scienceworld"``): the full data
    under ``data_root`` (or ``GRAPHMEM_DATA``) when present, else the bundled sample
    (:func:`graphmem.datasets.resolve`)."""
    from graphmem.datasets import resolve

    return resolve(_RESOLVE[dataset], data_root)


def _page(title: str) -> str:
    for code, char in (("-LRB-", "("), ("-RRB-", ")"), ("-COLON-", ":"), ("-LSB-", "["),
                       ("-RSB-", "]"), ("_", " ")):
        title = title.replace(code, char)
    return title


def fever_task(record: dict) -> ReplayTask:
    """A FEVER claim as a task. Trajectory = the first annotated evidence set as
    ``search[page]`` / ``lookup[sentence n]`` steps, then ``finish[LABEL]`` (ReAct's action form).
    """
    steps: list[str] = []
    evidence_sets = record.get("evidence") or []
    for _, _, page, sentence in (evidence_sets[0] if evidence_sets else []):
        if page is None:
            continue
        search = f"search[{_page(page)}]"
        if search not in steps:
            steps.append(search)
        steps.append(f"lookup[{_page(page)} sentence {sentence}]")
    steps.append(f"finish[{record['label']}]")
    return ReplayTask(
        task_id=f"fever-{record['id']}",
        query=record["claim"],
        status="resolved" if record.get("verifiable") == "VERIFIABLE" else "failed",
        trajectory=steps,
        kind=record["label"],
    )


def scienceworld_task(record: dict) -> ReplayTask:
    """A ScienceWorld gold trajectory as a task: its actions, resolved iff the final score is 100."""
    steps = record.get("steps") or []
    final = steps[-1]["score"] if steps else 0
    return ReplayTask(
        task_id=f"sciworld-{record['id']}",
        query=record["task_description"],
        status="resolved" if final is not None and float(final) >= 100 else "failed",
        trajectory=[s["action"] for s in steps],
        kind=record["task_name"],
    )


def _reader(record: dict):
    if "claim" in record:
        return fever_task
    if "task_description" in record:
        return scienceworld_task
    return None


def load_tasks(dataset: str | Path, limit: int | None = None,
               data_root: Path | None = None) -> list[ReplayTask]:
    """The first ``limit`` tasks of a dataset, in file order.

    Args:
        dataset: ``"fever"``, ``"scienceworld"`` or a path to a JSONL file of either format.
        limit: how many tasks (None = all).
        data_root: folder holding the full datasets (default ``GRAPHMEM_DATA``; without either,
            or when the folder lacks the file, the bundled sample).
    Raises:
        InvalidInputError: unknown dataset name. InputFormatError: a malformed line (names file and
        line). DataNotFoundError: the data folder does not exist.
    """
    name = str(dataset)
    if name in DATASETS:
        path = dataset_path(name, data_root)
    else:
        path = Path(name)
        if not path.is_file():
            raise InvalidInputError(f"unknown dataset {name!r}: use one of {sorted(DATASETS)} "
                                  "or a JSONL file path")
    return list(_iter_tasks(path, limit))


def _iter_tasks(path: Path, limit: int | None) -> Iterator[ReplayTask]:
    count = 0
    with path.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if limit is not None and count >= limit:
                return
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                reader = _reader(record)
                if reader is None:
                    raise ValueError("neither a FEVER claim nor a ScienceWorld trajectory")
                task = reader(record)
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                raise InputFormatError(f"{path}:{lineno}: {exc}") from None
            count += 1
            yield task


def outcome_source(dataset: str | Path) -> str:
    """How the replayed Ψ is read from the dataset's records."""
    name = str(dataset)
    if name in DATASETS:
        return DATASETS[name][1]
    return "recorded label/score of each record (see graphmem.insight.datasets)"

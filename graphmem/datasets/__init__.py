"""Datasets graphmem reads: bundled samples inside the package, full datasets outside.

Small real samples ship as package data under ``graphmem/datasets/samples/`` (same layout as a
full data folder, license and attribution beside each file; see ``README.md`` and ``NOTICE``
here). Full datasets are never bundled; point graphmem at a folder holding them with
``--data DIR`` or the ``GRAPHMEM_DATA`` environment variable.

::

    from graphmem.datasets import resolve
    path = resolve("locomo")                      # GRAPHMEM_DATA's file if present, else the sample
    path = resolve("fever", data_dir="/data")     # /data/fever/paper_dev.jsonl if present
    path = resolve("memconflict")                 # full only: DataNotFoundError when missing
    path = resolve("beam", "/data", full=True)    # a folder: /data/beam/500K (chat folders)

Every missing dataset raises :class:`graphmem.errors.DataNotFoundError` naming the missing
path, where the full data comes from, and ``--data DIR`` / ``GRAPHMEM_DATA``.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from graphmem.errors import DataNotFoundError, InvalidInputError

__all__ = [
    "DATASETS",
    "ENV_VAR",
    "DatasetInfo",
    "bundled_path",
    "bundled_root",
    "data_dir_from_env",
    "describe",
    "resolve",
]

logger = logging.getLogger(__name__)

#: Environment variable naming a folder with the full datasets (same layout as ``samples/``).
ENV_VAR = "GRAPHMEM_DATA"


@dataclass(frozen=True)
class DatasetInfo:
    """One known dataset.

    Attributes:
        name: registry key (``"locomo"``, ``"fever"``, ...).
        paths: candidate file paths below a data folder, first match wins; ``paths[0]`` is also
            the bundled sample's path below ``samples/``.
        holds: for a dataset that is a folder (BEAM's chat folders): the file name the folder
            must hold, in it or below it (``"chat.json"``); empty: the candidates are files.
        source: where the full dataset comes from (repository and path, no URL).
        license: the data's license.
        bundled: whether a sample ships inside the package.
        sample: what the bundled sample holds (empty when not bundled).
    """

    name: str
    paths: tuple[str, ...]
    source: str
    license: str
    bundled: bool
    sample: str = ""
    holds: str = ""

    def found(self, candidate: Path) -> bool:
        """Whether ``candidate`` is this dataset: an existing file, or (``holds``) a folder
        holding a ``holds`` file in it or below it."""
        if not self.holds:
            return candidate.is_file()
        return candidate.is_dir() and any(candidate.rglob(self.holds))


#: The registry of known datasets, by name.
DATASETS: dict[str, DatasetInfo] = {
    info.name: info
    for info in (
        DatasetInfo(
            "locomo", ("locomo/locomo-dev.json", "locomo/locomo10.json"),
            "LoCoMo: snap-research/LoCoMo, data/locomo10.json (10 conversations with QA)",
            "CC BY-NC 4.0 (non-commercial)", True,
            "conversations conv-26 and conv-30, complete, with their QA"),
        DatasetInfo(
            "fever", ("fever/paper_dev.jsonl",),
            "FEVER shared task, paper_dev split: ysymyth/ReAct, data/paper_dev.jsonl (9,999 claims)",
            "CC BY-SA 3.0", True, "the first 250 claims"),
        DatasetInfo(
            "scienceworld_train", ("scienceworld/sciworld_gold_train.jsonl",),
            "ScienceWorld gold trajectories for the ETO train split (Yifan-Song793/ETO, "
            "eval_agent/data/sciworld/train_indices.json), generated with the scienceworld "
            "simulator's gold action sequences (1,483 records)",
            "Apache-2.0 (simulator)", True,
            "the first 24 records plus the first 2 of each task type (56)"),
        DatasetInfo(
            "scienceworld_dev", ("scienceworld/sciworld_gold_dev.jsonl",),
            "ScienceWorld gold trajectories for the ETO dev split (Yifan-Song793/ETO, "
            "eval_agent/data/sciworld/dev_indices.json), generated with the scienceworld "
            "simulator's gold action sequences (194 records)",
            "Apache-2.0 (simulator)", True,
            "the first 10 records plus the first of each task type (26)"),
        DatasetInfo(
            "hotpotqa", ("hotpotqa/hotpot-qa-distractor-sample.json",
                         "hotpotqa/hotpot_dev_distractor_v1.json"),
            "HotpotQA distractor dev: noahshinn/reflexion, "
            "hotpotqa_runs/data/hotpot-qa-distractor-sample.joblib (100 questions), or the "
            "official hotpot_dev_distractor_v1.json",
            "CC BY-SA 4.0", True, "the first 20 questions with context and supporting facts"),
        DatasetInfo(
            "memconflict", ("memconflict/Step4_1.jsonl",),
            "MemConflict: TaoZhen1110/MemConflict, folder Data/ (Step4_1.jsonl and the files "
            "beside it); research release without a license, evaluation only",
            "none (no license file upstream; never redistributed)", False),
        DatasetInfo(
            "beam", ("beam/500K", "beam"),
            "BEAM: mohammadtavakoli78/BEAM (GitHub), chats/500K (35 chat folders, each with "
            "chat.json and probing_questions.json)",
            "none stated (no license file upstream); evaluation only, never redistributed",
            False, holds="chat.json"),
    )
}

_PACKAGE = "graphmem.datasets"
_SAMPLES = "samples"
_materialized: Path | None = None


def _info(dataset: str) -> DatasetInfo:
    try:
        return DATASETS[dataset]
    except KeyError:
        raise InvalidInputError(
            f"unknown dataset {dataset!r}: graphmem knows {', '.join(sorted(DATASETS))}"
        ) from None


def bundled_root() -> Path:
    """The folder of the bundled samples (``graphmem/datasets/samples``), usable as a data folder.

    Returns:
        A real directory. When the package is imported from a zip, the samples are copied once
        into a temporary directory for the life of the process.
    Raises:
        DataNotFoundError: the samples are missing from the installation.
    """
    global _materialized
    root = resources.files(_PACKAGE).joinpath(_SAMPLES)
    if isinstance(root, Path):
        if not root.is_dir():
            raise DataNotFoundError(
                f"bundled samples folder {root} is missing: reinstall graphmem, or point it at full "
                f"data with --data DIR or {ENV_VAR}=DIR")
        return root
    if _materialized is None:  # pragma: no cover - zip imports only
        target = Path(tempfile.mkdtemp(prefix="graphmem-samples-")) / _SAMPLES
        with resources.as_file(root) as real:
            shutil.copytree(real, target)
        logger.info("copied bundled samples to %s", target)
        _materialized = target
    return _materialized


def bundled_path(name: str) -> Path:
    """The bundled sample file of dataset ``name``.

    Args:
        name: a registry key of :data:`DATASETS` (e.g. ``"locomo"``, ``"fever"``).
    Returns:
        The sample's path (an existing file).
    Raises:
        InvalidInputError: unknown name.
        DataNotFoundError: a full-only dataset (``memconflict``; the message says
            where it comes from and names ``--data DIR`` / ``GRAPHMEM_DATA``), or a missing file.
    """
    info = _info(name)
    if not info.bundled:
        raise DataNotFoundError(
            f"dataset {name!r} is not bundled with graphmem ({info.license}). Source: "
            f"{info.source}. Put {info.paths[0]} below a folder and pass --data DIR or set "
            f"{ENV_VAR}=DIR.")
    path = bundled_root() / info.paths[0]
    if not path.is_file():
        raise DataNotFoundError(
            f"bundled sample {path} is missing: reinstall graphmem, or pass --data DIR / set "
            f"{ENV_VAR}=DIR to a folder with {info.paths[0]} ({info.source})")
    return path


def data_dir_from_env() -> Path | None:
    """The folder named by ``GRAPHMEM_DATA``, or None when the variable is unset or empty."""
    value = os.environ.get(ENV_VAR, "").strip()
    return Path(value).expanduser() if value else None


def resolve(dataset: str, data_dir: str | Path | None = None, *, full: bool = False) -> Path:
    """The file to read for ``dataset``: the full dataset when available, else the bundled sample.

    Precedence: ``data_dir`` (e.g. ``--data DIR``) if given, else ``GRAPHMEM_DATA`` if set; in
    that folder the first existing candidate path of the dataset wins. Otherwise the bundled
    sample is returned (logged at INFO), unless ``full`` is set or the dataset is not bundled.

    Args:
        dataset: a registry key of :data:`DATASETS`.
        data_dir: a folder with full datasets (same layout as the samples); overrides
            ``GRAPHMEM_DATA``.
        full: require the full dataset (never fall back to the sample).
    Returns:
        Path of an existing file (a folder for a folder dataset such as ``beam``).
    Raises:
        InvalidInputError: unknown dataset name.
        DataNotFoundError: the given/configured folder does not exist; or neither it nor the
            package holds the dataset (full-only datasets such as ``memconflict``, or
            ``full=True``). The message names the missing path, the dataset's source and
            ``--data DIR`` / ``GRAPHMEM_DATA``.
    """
    info = _info(dataset)
    folder = Path(data_dir).expanduser() if data_dir is not None else data_dir_from_env()
    origin = "--data" if data_dir is not None else ENV_VAR
    tried: list[Path] = []
    if folder is not None:
        if not folder.is_dir():
            raise DataNotFoundError(
                f"data folder {folder} (from {origin}) does not exist; it should hold "
                f"{info.paths[0]} ({info.source}). Fix --data DIR / {ENV_VAR}=DIR, or unset it "
                "to use the bundled samples.")
        for rel in info.paths:
            candidate = folder / rel
            if info.found(candidate):
                logger.debug("dataset %s: %s", dataset, candidate)
                return candidate
            tried.append(candidate)
    if info.bundled and not full:
        path = bundled_path(dataset)
        if folder is not None:
            logger.warning("dataset %s: %s not found in %s; using the bundled sample %s",
                           dataset, info.paths[0], folder, path)
        else:
            logger.info("dataset %s: bundled sample (%s) %s", dataset, info.sample, path)
        return path
    missing = ", ".join(str(p) for p in tried) if tried else f"<data folder>/{info.paths[0]}"
    where = (f"{origin} is {folder}" if folder is not None
             else f"neither --data DIR nor {ENV_VAR} is set")
    kind = "the full dataset is required" if info.bundled else f"{dataset} is not bundled ({info.license})"
    raise DataNotFoundError(
        f"dataset {dataset!r} not found: {missing} does not exist ({where}; {kind}). "
        f"Source: {info.source}. Put {info.paths[0]} below a folder and pass --data DIR or set "
        f"{ENV_VAR}=DIR.")


def describe() -> list[dict[str, str | bool]]:
    """One row per known dataset: ``{"name", "path", "source", "license", "bundled", "sample"}``
    (for ``--help`` texts and reports)."""
    return [{"name": i.name, "path": i.paths[0], "source": i.source, "license": i.license,
             "bundled": i.bundled, "sample": i.sample} for i in DATASETS.values()]

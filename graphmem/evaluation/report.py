"""Report files of ``graphmem eval`` / ``graphmem bench``: the configuration record (versions,
data paths with sha256, parameters, seed), ``report.json``, ``report.md`` and PNG plots
(matplotlib, Agg backend)."""

from __future__ import annotations

import hashlib
import logging
import os
import json
import platform
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

PACKAGES = ("graphmem", "neo4j", "sentence-transformers", "torch", "numpy", "pot", "networkx",
            "langchain-core", "langchain-neo4j", "bm25s", "matplotlib")


def sha256_of(path: str | Path) -> str | None:
    """sha256 hex digest of a file (streamed), or ``None`` when it does not exist."""
    p = Path(path)
    if not p.is_file():
        return None
    digest = hashlib.sha256()
    with p.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def versions() -> dict[str, str | None]:
    """Installed versions of the packages the numbers depend on, plus Python."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def configuration(command: str, parameters: dict[str, Any], data: dict[str, str | Path | None],
                  server: dict[str, Any]) -> dict[str, Any]:
    """The configuration record of a run: command line, parameters, data files (path + sha256),
    package versions, Neo4j server (``{"uri", "version"}``), platform, UTC start time."""
    return {
        "command": command,
        "argv": sys.argv,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "parameters": parameters,
        "data": {name: ({"path": str(p), "sha256": sha256_of(p)} if p else None)
                 for name, p in data.items()},
        "versions": versions(),
        "neo4j": server,
        "platform": {"machine": platform.machine(), "system": platform.system(),
                     "cpus": os.cpu_count(), "torch_threads": _torch_threads()},
    }


def _torch_threads() -> int | None:
    try:
        import torch

        return int(torch.get_num_threads())
    except ImportError:  # pragma: no cover
        return None


def embedder_name(embedder: object) -> str:
    """The model name of an embedder (through a validating wrapper's ``inner``), else its class."""
    inner = getattr(embedder, "inner", embedder)
    return str(getattr(inner, "model_name", type(inner).__name__))


def default_out(kind: str) -> Path:
    """``reports/<kind>-<UTC timestamp>/`` in the working directory."""
    return Path("reports") / f"{kind}-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}"


def dumps(value: Any) -> str:
    """``value`` as indented JSON text (datetimes and other objects as strings)."""
    return json.dumps(value, indent=2, default=str)


def write_json(out: Path, report: dict[str, Any]) -> Path:
    """Write ``report.json`` (indent 2) into ``out``; returns its path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "report.json"
    path.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    return path


def _plt():
    from graphmem.optional import require

    matplotlib = require("matplotlib", "eval", "report plots")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def bar_chart(path: Path, title: str, groups: Sequence[str], series: dict[str, Sequence[float]],
              ylabel: str) -> Path:
    """Grouped bar chart: one group per entry of ``groups``, one bar per series."""
    import numpy as np

    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(groups) + 2), 4))
    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for i, (name, values) in enumerate(series.items()):
        ax.bar(x + i * width - 0.4 + width / 2, values, width, label=name)
    ax.set_xticks(x, groups, rotation=20, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def scatter(path: Path, title: str, points: Sequence[tuple[float, float]], xlabel: str, ylabel: str) -> Path:
    """Scatter plot with the y = x diagonal."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 5))
    if points:
        xs, ys = zip(*points, strict=True)
        ax.scatter(xs, ys, alpha=0.6)
        top = max(max(xs), max(ys)) + 1
        ax.plot([0, top], [0, top], "k--", linewidth=1, label="y = x")
        ax.legend()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def line_chart(path: Path, title: str, xs: Sequence[float], series: dict[str, Sequence[float]],
               xlabel: str, ylabel: str, logx: bool = True) -> Path:
    """One line per series over ``xs``."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, ys in series.items():
        ax.plot(xs, ys, marker="o", label=name)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub Markdown table."""
    def cell(v: Any) -> str:
        if v is None:
            return "–"
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def config_md(config: dict[str, Any]) -> str:
    """The configuration record as Markdown."""
    lines = ["## Configuration", "", f"- command: `{' '.join(config['argv'])}`",
             f"- started: {config['started_at']}", f"- Neo4j: {config['neo4j']}",
             f"- parameters: `{json.dumps(config['parameters'], default=str)}`", "", "Data:", ""]
    for name, entry in config["data"].items():
        lines.append(f"- {name}: " + (f"`{entry['path']}` sha256 `{entry['sha256']}`" if entry else "none"))
    lines += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in config["versions"].items() if v)]
    return "\n".join(lines)

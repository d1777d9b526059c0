"""The ``corpora`` section of ``graphmem eval`` and ``graphmem eval corpus``: evidence recall of
the memories and the plain baselines (:func:`graphmem.evaluation.corpus_recall.evaluate_corpus`)
on each kind of conversation, LoCoMo (two speakers chatting) and BEAM (user-assistant agent
chats), with the tables that report it (method x category, best plain baseline marked).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from graphmem.conversations import Conversation, read_conversations
from graphmem.datasets import resolve
from graphmem.errors import DataNotFoundError, InvalidInputError
from graphmem.evaluation import report as rpt
from graphmem.evaluation.corpus_recall import (
    BASELINES,
    HEADLINE_K,
    METHODS,
    SESSION_K,
    evaluate_corpus,
)
from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: The corpora graphmem evaluates on, by dataset name (also the reader's format).
CORPORA = {"locomo": "LoCoMo", "beam": "BEAM"}

#: What the corpora section says when BEAM is absent (it is never bundled).
BEAM_SKIPPED = "skipped: BEAM is not bundled (no license); pass --data DIR with beam/500K/"
#: What the quick run's corpora section says about BEAM.
BEAM_QUICK = "skipped: the quick run leaves BEAM out; run graphmem eval corpus --dataset beam"


def load_corpus(dataset: str, data: str | Path | None = None, conversations: int | None = None,
                full: bool = False) -> tuple[Path, list[Conversation]]:
    """The path and the first ``conversations`` conversations (None: all) of corpus
    ``dataset``, resolved by :func:`graphmem.datasets.resolve` (``data``, else
    ``GRAPHMEM_DATA``, else LoCoMo's bundled sample unless ``full``) and read by
    :func:`graphmem.conversations.read_conversations` in that format.

    Raises:
        InvalidInputError: an unknown corpus or ``conversations`` < 1.
        DataNotFoundError: the dataset is not there (BEAM is never bundled).
        InputFormatError: a malformed file.
    """
    if dataset not in CORPORA:
        raise InvalidInputError(f"unknown corpus {dataset!r}: use one of {', '.join(CORPORA)}")
    if conversations is not None and conversations < 1:
        raise InvalidInputError(f"conversations must be at least 1, got {conversations!r}")
    path = resolve(dataset, data, full=full)
    convs = read_conversations(path, fmt=dataset)  # type: ignore[arg-type]
    return path, convs[:conversations] if conversations is not None else convs


def corpora_section(mem: GraphMemory, data: Path | None, locomo: Sequence[Conversation],
                    prefix: str, max_questions: int | None, beam_chats: int | None,
                    say: Callable[[str], None]) -> dict[str, Any]:
    """``{"locomo": ..., "beam": ...}``: :func:`evaluate_corpus` (shipped setting) on the LoCoMo
    conversations the run reads and on the first ``beam_chats`` BEAM chats (None: all; 0: BEAM
    skipped), each result with its ``path``; BEAM absent from ``data`` -> ``{"skipped": why}``.

    Raises:
        The errors of :func:`evaluate_corpus` and of the BEAM reader.
    """
    out: dict[str, Any] = {}
    out["locomo"] = evaluate_corpus(mem, "locomo", locomo, f"{prefix}-locomo",
                                    max_questions=max_questions,
                                    progress=lambda m: say(f"corpora locomo {m}"))
    if beam_chats == 0:
        out["beam"] = {"skipped": BEAM_QUICK}
        say(f"corpora beam: {BEAM_QUICK}")
        return out
    try:
        path, chats = load_corpus("beam", data, beam_chats, full=True)
    except DataNotFoundError as exc:
        logger.info("BEAM not found: %s", exc)
        out["beam"] = {"skipped": BEAM_SKIPPED}
        say(f"corpora beam: {BEAM_SKIPPED}")
        return out
    out["beam"] = {"path": str(path), **evaluate_corpus(
        mem, "beam", chats, f"{prefix}-beam", progress=lambda m: say(f"corpora beam {m}"))}
    return out


def corpus_table(section: dict[str, Any]) -> tuple[list[str], list[list[Any]],
                                                   set[tuple[int, int]]]:
    """The report table of one :func:`evaluate_corpus` result: ``(header, rows, marked)``, one
    row per method (``method``, overall recall@10, session recall@5, then each category's
    recall@10), and the ``(row, column)`` cells of the best plain baseline per column (ties
    all marked)."""
    recall, sessions = section["recall"], section[f"session_recall@{SESSION_K}"]
    methods = [m for m in METHODS if m in recall]
    cats = list(dict.fromkeys(c for m in methods for c in recall[m] if c != "overall"))
    header = ["method", f"R@{HEADLINE_K}", f"session R@{SESSION_K}",
              *[f"{c} R@{HEADLINE_K}" for c in cats]]
    rows = [[m, recall[m]["overall"][f"recall@{HEADLINE_K}"], sessions[m].get("overall"),
             *[recall[m].get(c, {}).get(f"recall@{HEADLINE_K}") for c in cats]]
            for m in methods]
    marked: set[tuple[int, int]] = set()
    plain = [i for i, m in enumerate(methods) if m in BASELINES]
    for col in range(1, len(header)):
        values = [rows[i][col] for i in plain if rows[i][col] is not None]
        if values:
            marked |= {(i, col) for i in plain if rows[i][col] == max(values)}
    return header, rows, marked


def corpus_markdown(name: str, section: dict[str, Any]) -> str:
    """One corpus' part of report.md: what was run, the method x category table (best plain
    baseline per column in bold), latency and ingest time; or why it was skipped."""
    title = CORPORA.get(name, name)
    if "skipped" in section:
        return f"### {title}\n\n{section['skipped'][0].upper()}{section['skipped'][1:]}.\n"
    header, rows, marked = corpus_table(section)
    cells = [[f"**{v:.4g}**" if (r, c) in marked else v for c, v in enumerate(row)]
             for r, row in enumerate(rows)]  # bold cells formatted as md_table formats floats
    per_cat = section["recall"][rows[0][0]] if rows else {}
    counts = ", ".join(f"{c} {v['questions']}" for c, v in per_cat.items() if c != "overall")
    return "\n".join([
        f"### {title}", "",
        f"{len(section['conversations'])} conversation(s), {section['questions']} questions with "
        f"evidence ({section['skipped_questions']} whose evidence names no turn skipped; per "
        f"category: {counts}); memories: {section['protocol']}. Recall@{HEADLINE_K} per "
        f"category (overall first) and session recall@{SESSION_K}; bold: the best plain "
        "baseline of the column.", "",
        rpt.md_table(header, cells), "",
        "Latency per question (ms): " + ", ".join(
            f"{m} p50 {v['p50']} / p95 {v['p95']}" for m, v in section["latency_ms"].items()),
        "", f"Ingest seconds: {section['ingest_seconds']}", ""])


def corpora_markdown(corpora: dict[str, dict[str, Any]]) -> str:
    """The ``corpora`` part of report.md (one table per corpus, see :func:`corpus_markdown`)."""
    intro = ("Each conversation in its own tenant, all in the database at once. Methods: `fused` "
             "(`GraphMemory.recall`, reciprocal rank fusion of the memories), `state`, "
             "`associative` (each memory's `recall`), and plain baselines over the raw turns: "
             "`bm25` (bm25s), `dense` (exact cosine, the memories' embedder), `hybrid` (RRF, "
             "k = 60, of both).")
    return "\n".join(["## Evidence recall per corpus", "", intro, "",
                      *[corpus_markdown(n, s) for n, s in corpora.items()]])

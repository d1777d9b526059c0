"""Tables a person can read: recall results (one layout per memory where the memory has one),
ingest reports, namespace listings, and the explanation of an empty answer.

Conventions: headers are full words and paper symbols go to a legend line; node ids are shown as
their first :data:`ID_CHARS` characters everywhere, upstream source ids (``D1:3``, a task key) as
they are; long text is shortened at a word boundary with an ellipsis.
"""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

if TYPE_CHECKING:
    from rich.console import Console

    from graphmem.facade import GraphMemory
    from graphmem.memory import IngestReport, RecallResult

#: Characters of a node id shown in tables.
ID_CHARS = 8
#: Characters of item text shown in a table cell (then an ellipsis at a word boundary).
TEXT_CHARS = 240

_HEXISH = re.compile(r"^[0-9a-f-]{16,}$")

#: Per memory: (extra columns as (header, item field), legend line, score caption).
LAYOUTS: dict[str, tuple[tuple[tuple[str, str], ...], str, str]] = {
    "insight": ((("support", "s"), ("conflict", "c"), ("relevance", "r")),
                "support s = |Ω+ ∩ Q̃ˢ|, conflict c = |Ω− ∩ Q̃ˢ|, relevance r = s − λc (eq. 8)",
                "score: relevance r"),
    "state": ((("occurred", "occurred_at"), ("current", "current")),
              "current: the state still holds (no later change on its topic)",
              "score: cosine to the question plus keyword, recency and agreement terms"),
    "associative": ((), "kinds: episode (a turn), semantic_unit (a fact from turns)",
                    "score: reciprocal-rank fusion of the vector and cue → tag → content rankings"),
}


def short_id(value: str) -> str:
    """A node id as its first :data:`ID_CHARS` characters; upstream ids unchanged."""
    value = str(value)
    return value[:ID_CHARS] if _HEXISH.match(value) else value


def shorten(text: str, width: int = TEXT_CHARS) -> str:
    """``text`` on one line, cut at a word boundary with `` …`` when longer than ``width``."""
    return textwrap.shorten(" ".join(str(text).split()), width=width, placeholder=" …")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if hasattr(value, "date") and callable(value.date):
        return value.date().isoformat()
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    return escape(shorten(str(value), 40))


def _sources(ids: list[str], limit: int = 4) -> str:
    shown = [short_id(x) for x in ids[:limit]]
    more = f" +{len(ids) - limit}" if len(ids) > limit else ""
    return escape(", ".join(shown) + more)


def recall_table(result: RecallResult) -> Table:
    """The items of ``result`` as a table with the memory's columns, legend and caption."""
    extra, legend, caption = LAYOUTS.get(result.memory, ((), "", "score: higher is better"))
    table = Table("rank", "kind", "score", "sources", *(h for h, _ in extra), "text",
                  title=escape(f"{result.memory} recall: {result.query}"),
                  caption=escape("; ".join(x for x in (caption, legend) if x)))
    for rank, item in enumerate(result.items, 1):
        table.add_row(str(rank), item.kind, f"{item.score:.4g}", _sources(item.source_ids),
                      *(_cell(getattr(item, f, None)) for _, f in extra),
                      escape(shorten(item.text)))
    return table


def _rule_text(rule: dict[str, Any]) -> str:
    for key in ("text", "action_raw", "description"):
        if rule.get(key):
            return str(rule[key])
    return ", ".join(f"{k} {v}" for k, v in rule.items() if v not in (None, ""))


def experience_table(result: RecallResult) -> Table:
    """Experience recall as tasks, each with its insight, corrections and workflow steps."""
    table = Table("rank", "task", "similarity", "reward", "insight", "corrections",
                  "workflow steps", title=escape(f"experience recall: {result.query}"),
                  caption="similarity: cosine of the task to the question; corrections: edits "
                          "from an exploration to the expert run; workflow: the stored decisions")
    for rank, item in enumerate(result.items, 1):
        corrections = [shorten(_rule_text(r), 60) for r in item.correction_rules[:3]]
        steps = [shorten(_rule_text(r), 40) for r in item.workflow_rules[:5]]
        more = len(item.workflow_rules) - len(steps)
        table.add_row(str(rank), escape(f"{item.task_key}: {shorten(item.query, 80)}"),
                      f"{item.score:.4g}", _cell(item.reward),
                      escape(shorten(item.intra_insight or "", 160)),
                      escape("\n".join(corrections) or "none"),
                      escape("\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
                             + (f"\n… {more} more" if more > 0 else "")) or "none")
    return table


def print_rounds(console: Console, result: RecallResult) -> None:
    """One line per retrieval round: number, action, items added, reason."""
    for rnd in result.rounds:
        added = f" (+{len(rnd.added)})" if rnd.added else ""
        reason = f" — {rnd.reason}" if rnd.reason else ""
        console.print(escape(f"  round {rnd.number}: {rnd.action}{added}{reason}"),
                      highlight=False)


def namespace_counts(mem: GraphMemory) -> dict[str, dict[str, int]]:
    """``{namespace: {memory: nodes}}`` for every namespace that holds memory
    (``core/list_namespaces``)."""
    from graphmem.memory import MEMORY_REGISTRY

    owner = {label: spec.name for spec in MEMORY_REGISTRY.values() for label in spec.labels}
    out: dict[str, dict[str, int]] = {}
    for row in mem.runner.run("core/list_namespaces"):
        memory = owner.get(row["label"])
        if memory is None:
            continue
        per = out.setdefault(row["namespace"], {})
        per[memory] = per.get(memory, 0) + int(row["nodes"])
    return out


def explain_empty(console: Console, mem: GraphMemory, result: RecallResult) -> None:
    """Why a recall returned nothing: the namespace holds no such memory (and which namespaces
    do), or it holds some and nothing matched."""
    held = sum(mem.memory(result.memory).counts().values())
    if held:
        console.print(f"nothing matched: namespace {result.namespace!r} holds {held} "
                      f"{result.memory} nodes, none close enough to the question",
                      highlight=False)
        return
    _explain_missing(console, mem, result.memory)


def explain_missing(console: Console, mem: GraphMemory, memory: str) -> bool:
    """Before a recall: when ``mem``'s namespace holds no node of ``memory``, say so (and which
    namespaces do) and return True, so the command stops before the embedding model loads."""
    if sum(mem.memory(memory).counts().values()):
        return False
    _explain_missing(console, mem, memory)
    return True


def _explain_missing(console: Console, mem: GraphMemory, memory: str) -> None:
    others = {ns: per[memory] for ns, per in namespace_counts(mem).items() if per.get(memory)}
    listing = ", ".join(f"{ns} ({n})" for ns, n in sorted(others.items())) or "none"
    console.print(f"namespace {mem.namespace!r} holds no {memory} memory — "
                  f"namespaces with {memory} memory: {listing} — pass one with "
                  f"--namespace, or ingest first (graphmem namespaces lists all)",
                  highlight=False)


def ingest_line(report: IngestReport) -> str:
    """One line of an ingest report; the counts are the database's own answer."""
    created = ", ".join(f"{n} {kind}" for kind, n in report.created.items()) or "nothing new"
    skipped = ", ".join(f"{n} {kind}" for kind, n in report.skipped.items())
    return (f"{report.memory} memory, namespace {report.namespace}: {report.inputs} inputs "
            f"read; created {created}" + (f"; already stored {skipped}" if skipped else "")
            + f" ({report.extractor} extractor, {report.seconds:.1f} s)")

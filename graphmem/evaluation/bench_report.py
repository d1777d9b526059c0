"""The report of ``graphmem bench``: target checks, the missed targets' measured split, console
summary lines, PNG plots and report.md (pure but for writing the plots)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphmem.evaluation import report as rpt
from graphmem.evaluation.metrics import check_target

logger = logging.getLogger(__name__)

TARGETS = {"recall_p50_ratio": 2.0, "recall_p95_ratio": 3.0, "combined_p50_ratio": 3.0,
           "growth": 1.5, "ingest_vs_encode": 0.7, "writes_vs_unwind": 1.3,
           "history_growth": 2.0, "history_max_ms": 1000.0, "warm_vs_in_process": 1.2}


def targets_check(report: dict[str, Any], sizes: Sequence[int]) -> dict[str, Any]:
    """Each target: ``{"value", "target", "met"}`` per memory (latency at the largest size) and
    per section (``combined``, ``history``, ``warm``) when the section ran."""
    hi = str(sizes[-1])
    out: dict[str, Any] = {}
    for m in ("state", "associative"):
        ms = report["recall"][hi]["ms"][m]
        ing = report["ingest"][m]
        out[m] = {
            f"recall_p50_ratio@{hi}": check_target(ms["p50_ratio"], TARGETS["recall_p50_ratio"]),
            f"recall_p95_ratio@{hi}": check_target(ms["p95_ratio"], TARGETS["recall_p95_ratio"]),
            "growth_p50": check_target(report["growth"].get(m, {}).get("p50"), TARGETS["growth"]),
            "ingest_vs_encode": check_target(ing["ingest_vs_encode"], TARGETS["ingest_vs_encode"], True),
            "writes_vs_unwind": check_target(ing["writes_vs_unwind"], TARGETS["writes_vs_unwind"]),
        }
        history = report.get("history", {}).get(m)
        if history:
            out[m]["history_growth_p50"] = check_target(history["growth_p50"],
                                                        TARGETS["history_growth"])
            out[m]["history_max_recall_ms"] = check_target(history["max_recall_ms"],
                                                           TARGETS["history_max_ms"])
        warm = report.get("warm", {}).get(m)
        if warm and "ratio_p50" in warm:
            out[m]["warm_vs_in_process_p50"] = check_target(warm["ratio_p50"],
                                                            TARGETS["warm_vs_in_process"])
    concurrency = report.get("concurrency")
    if concurrency and "lost_updates" in concurrency:
        out["concurrency"] = {"lost_updates": check_target(concurrency["lost_updates"], 0)}
    combined = report["recall"][hi]["ms"].get("combined")
    if combined:
        out["combined"] = {f"recall_p50_ratio@{hi}": check_target(combined["p50_ratio"],
                                                                 TARGETS["combined_p50_ratio"])}
    return out


def missed(report: dict[str, Any]) -> list[str]:
    """One line per missed target: where, what, the measured value and the limit."""
    return [f"{where} {name}: {c['value']} (target {c['target']})"
            for where, checks in report.get("targets_check", {}).items()
            for name, c in checks.items() if not c["met"]]


def summary_lines(report: dict[str, Any]) -> list[str]:
    """One line per measured number, for the console."""
    lines = []
    for size, row in report["recall"].items():
        lines.append(f"recall ms @{size}: " + "; ".join(
            f"{m} p50 {v['p50']} p95 {v['p95']}" + (f" (x{v['p50_ratio']}/x{v['p95_ratio']})" if "p50_ratio" in v else "")
            for m, v in row["ms"].items()))
    if report.get("growth"):
        lines.append("growth p50: " + ", ".join(f"{m} x{v['p50']}" for m, v in report["growth"].items()))
    ing = report["ingest"]
    lines.append(f"raw encode {ing['raw_encode']['turns_per_s']} turns/s; " + "; ".join(
        f"{m} {ing[m]['turns_per_s']} turns/s (x{ing[m]['ingest_vs_encode']} of encode, writes "
        f"x{ing[m]['writes_vs_unwind']} of raw UNWIND)" for m in ("state", "associative")))
    for m, h in report.get("history", {}).items():
        lines.append(f"long history {m}: " + "; ".join(
            f"@{size} recall p50 {v['recall_ms']['p50']} max {v['recall_ms']['max']} ms, ingest "
            f"{v['ingest_ms_per_turn']} ms/turn" for size, v in h["sizes"].items())
            + f" (growth x{h['growth_p50']})")
    lines += [f"missed: {line}" for line in missed(report)]
    return lines


def bench_plots(report: dict[str, Any], out: Path, sizes: Sequence[int]) -> list[str]:
    """Latency vs size (p50, p95), ingest throughput bars and the long-history recall curve."""
    xs = [int(s) for s in report["recall"]]
    methods = list(next(iter(report["recall"].values()))["ms"])
    files = [rpt.line_chart(out / f"recall_latency_{p}.png", f"recall latency {p} (ms)", xs,
                            {m: [report["recall"][str(s)]["ms"][m][p] for s in xs] for m in methods},
                            "memory units per memory", "ms").name for p in ("p50", "p95")]
    ing = report["ingest"]
    files.append(rpt.bar_chart(out / "ingest_throughput.png", f"ingest throughput ({ing['turns']} turns)",
                               ["raw encode", "state", "associative"],
                               {"turns/s": [ing["raw_encode"]["turns_per_s"], ing["state"]["turns_per_s"],
                                            ing["associative"]["turns_per_s"]]}, "turns/s").name)
    history = report.get("history")
    if history:
        hx = [int(s) for s in next(iter(history.values()))["sizes"]]
        files.append(rpt.line_chart(out / "long_history_recall.png", "recall p50 on one long history (ms)",
                                    hx, {m: [h["sizes"][str(s)]["recall_ms"]["p50"] for s in hx]
                                         for m, h in history.items()},
                                    "turns in one topic chain / contents of one cue", "ms").name)
    return files


def _write_breakdown(memory: str, writes: dict[str, Any]) -> str:
    """One markdown line: where a memory's replayed write seconds go (median over the write
    rounds of :func:`graphmem.evaluation.ingest_bench.write_rounds`), largest statement first."""
    statements = sorted(writes["statement_seconds"].items(), key=lambda kv: -kv[1])
    return (f"- {memory} write seconds by statement: "
            + ", ".join(f"`{q}` {s:.3f}" for q, s in statements)
            + f"; beyond the statements (begin, planning, commit with index updates) "
              f"{writes['outside_statement_seconds']:.3f}")


def bench_markdown(report: dict[str, Any], description: str = "") -> str:
    """report.md of ``graphmem bench``; ``description`` (what the bench measures, the
    :mod:`graphmem.evaluation.bench` docstring) heads it."""
    cfg = report["config"]["parameters"]
    parts = ["# graphmem bench", "",
             f"Run `{cfg['run_id']}`, sizes {cfg['sizes']}, {cfg['questions']} questions, tenant "
             f"{cfg['tenant']} ({cfg['tenant_turns']} turns), σ = {cfg['sigma']}, total {report['seconds']} s.", "",
             description.strip(), "", "## Recall latency (ms)", ""]
    rows = []
    for size, row in report["recall"].items():
        for m, v in row["ms"].items():
            rows.append([size, m, row["units"].get(m, row["units"].get("state")), v["p50"], v["p95"],
                         v.get("p50_ratio"), v.get("p95_ratio")])
    parts += [rpt.md_table(["size", "method", "units", "p50", "p95", "p50 / vector", "p95 / vector"], rows), ""]
    if report.get("growth"):
        parts += ["Growth (largest / smallest size): " + ", ".join(
            f"{m} p50 x{v['p50']} p95 x{v['p95']}" for m, v in report["growth"].items()), ""]
    ing = report["ingest"]
    parts += ["## Ingest throughput (heuristic path)", "",
              f"Raw sentence-transformers encode: {ing['raw_encode']['turns_per_s']} turns/s (median "
              "round). \"x encode\" is the median over rounds of one timed ingest per memory and one "
              "raw encode (raw first in even rounds, last in odd ones); the columns before it are "
              "the median round's (\"rounds s\" lists every round).", "",
              "Encoding runs in a worker thread beside extraction (both memories) and beside the "
              "vector-free writes (associative), so the parts overlap; \"wait s\" is time a write "
              "transaction waited for that encoding (not counted as writing). \"writes / UNWIND\" "
              "is the median over replayed ingests (the same turns, their vectors from this run, "
              "nothing encoded) each against a raw UNWIND of as many nodes; \"in-run\" is this "
              "run's write seconds over one raw UNWIND (writes here share the CPU with the encoder).", "",
              rpt.md_table(["memory", "turns/s", "rounds s", "x encode", "encode s", "write s", "read s", "wait s",
                            "other s", "nodes", "raw UNWIND s (same nodes)", "in-run writes / UNWIND",
                            "replayed write s", "raw UNWIND s", "writes / UNWIND"],
                           [[m, ing[m]["turns_per_s"],
                             " / ".join(str(x) for x in ing[m].get("throughput_rounds", {}).get("seconds", [])),
                             ing[m]["ingest_vs_encode"], ing[m]["encode_seconds"],
                             ing[m]["write_seconds"], ing[m]["read_seconds"],
                             ing[m].get("wait_seconds", 0.0), ing[m]["other_seconds"],
                             ing[m]["nodes_created"], ing[m]["raw_unwind_seconds_same_nodes"],
                             ing[m].get("ingest_writes_vs_unwind"),
                             " / ".join(str(x) for x in ing[m].get("write_rounds", {}).get("write_seconds", [])),
                             " / ".join(str(x) for x in ing[m].get("write_rounds", {}).get("raw_unwind_seconds", [])),
                             ing[m]["writes_vs_unwind"]] for m in ("state", "associative")]), ""]
    parts += [_write_breakdown(m, ing[m].get("write_rounds", {})) for m in ("state", "associative")
              if ing[m].get("write_rounds", {}).get("statement_seconds")] + [""]
    if report.get("history"):
        parts += ["## Long history (one topic chain, one cue)", "",
                  rpt.md_table(["memory", "size", "recall p50 ms", "recall p95 ms", "recall max ms",
                                "ingest ms / turn"],
                               [[m, size, v["recall_ms"]["p50"], v["recall_ms"]["p95"],
                                 v["recall_ms"]["max"], v["ingest_ms_per_turn"]]
                                for m, h in report["history"].items()
                                for size, v in h["sizes"].items()]), ""]
    for key, title in (("concurrency", "Concurrent writers"), ("warm", "Warm process")):
        if report.get(key):
            parts += [f"## {title}", "", "```json", rpt.dumps(report[key]), "```", ""]
    parts += ["## Targets", ""]
    rows = [[m, name, c["value"], c["target"], "yes" if c["met"] else "**no**"]
            for m, checks in report["targets_check"].items() for name, c in checks.items()]
    parts += [rpt.md_table(["where", "target", "value", "limit", "met"], rows), ""]
    parts += ["## Plots", ""] + [f"![{p}]({p})" for p in report["plots"]] + ["", rpt.config_md(report["config"]), ""]
    return "\n".join(parts)

"""The report of ``graphmem eval`` (:func:`graphmem.evaluation.run_eval.run_eval`): its PNG plots
and its ``report.md``, both made from the report dict that ``report.json`` holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphmem.evaluation import report as rpt
from graphmem.evaluation.corpora import corpora_markdown
from graphmem.evaluation.locomo import METHODS


def eval_plots(report: dict[str, Any], out: Path) -> list[str]:
    """PNG plots of the eval report; returns their file names."""
    files = []
    rec = report["locomo"]["recall"]
    ks = report["locomo"]["ks"]
    methods = [m for m in METHODS if m in rec]
    if methods:
        files.append(rpt.bar_chart(out / "locomo_recall_overall.png", "LoCoMo evidence recall (overall)",
                                   [f"recall@{k}" for k in ks],
                                   {m: [rec[m]["overall"][f"recall@{k}"] for k in ks] for m in methods},
                                   "recall").name)
        cats = [c for c in rec[methods[0]] if c != "overall"]
        files.append(rpt.bar_chart(out / "locomo_recall10_by_category.png",
                                   "LoCoMo recall@10 by category", cats,
                                   {m: [rec[m].get(c, {}).get("recall@10", 0.0) for c in cats] for m in methods},
                                   "recall@10").name)
    probes = report["memconflict"].get("probes")
    if probes:
        files.append(rpt.bar_chart(out / "memconflict_probes.png", "MemConflict probes (state memory)",
                                   list(probes), {"score": [v["score"] for v in probes.values()]},
                                   "share").name)
    ged = report["experience"].get("ged")
    if ged and ged.get("points"):
        files.append(rpt.scatter(out / "experience_edit_path_vs_ged.png",
                                 "Edit-path length vs exact GED", ged["points"],
                                 "exact GED (networkx)", "edit-path length (FGW + Alg. 3)").name)
    return files


def eval_markdown(report: dict[str, Any]) -> str:
    """report.md of ``graphmem eval``."""
    loc = report["locomo"]
    ks = loc["ks"]
    parts = ["# graphmem eval", "",
             f"Run `{report['config']['parameters']['run_id']}`, seed {report['config']['parameters']['seed']}, "
             f"quick={report['config']['parameters']['quick']}, total {report['seconds']['total']} s.", "",
             "## LoCoMo evidence recall", "",
             f"Conversations {', '.join(loc['conversations'])}; {loc['questions']} questions with "
             f"evidence ({loc['skipped_questions']} whose evidence names no turn skipped); every "
             "conversation's tenant in the database at once. Methods: `state`, `associative` (public "
             "`recall`, the items returned), `combined` (`CombinedGraphMemoryRetriever`), `bm25` "
             "(bm25s over the raw turns), `cosine` (langchain-neo4j Neo4jVector, MiniLM, over the "
             f"same turns). Memories: {loc['protocol']}.", ""]
    rows = []
    for m in METHODS:
        for cat, v in loc["recall"].get(m, {}).items():
            rows.append([m, cat, v["questions"], *[v[f"recall@{k}"] for k in ks]])
    parts += [rpt.md_table(["method", "category", "questions", *[f"recall@{k}" for k in ks]], rows), ""]
    if loc.get("loo"):
        parts += ["Leave-one-conversation-out picks (setting chosen on the other conversations):", "",
                  rpt.md_table(["memory", "held out", "setting", "recall@10"],
                               [[m, c, v["picks"][c], v["per_conversation"][c]]
                                for m, v in loc["loo"].items() for c in v["picks"]]), ""]
    if loc.get("ablation"):
        parts += ["Ablation (recall@10 overall):", "",
                  rpt.md_table(["variant", *loc["ablation"][next(iter(loc["ablation"]))]],
                               [[name, *[v["overall"]["recall@10"] for v in t.values()]]
                                for name, t in loc["ablation"].items()]), ""]
    parts += ["Recall latency per question (ms):", "",
              rpt.md_table(["method", "p50", "p95"],
                           [[m, v["p50"], v["p95"]] for m, v in loc["latency_ms"].items()]), "",
              f"Ingest seconds: {loc['ingest_seconds']}", ""]
    hp = report.get("hotpotqa")
    if hp:
        parts += ["## HotpotQA supporting-fact recall", "",
                  f"{hp['examples']} distractor examples, {hp['supporting_facts']} supporting "
                  f"sentences; setting {hp['setting']['name']} (nothing tuned on HotpotQA).", "",
                  rpt.md_table(["method", "SF recall@5", "SF recall@10"],
                               [[m, v["@5"], v["@10"]] for m, v in hp["recall"].items()]), ""]
    if report.get("corpora"):
        parts += [corpora_markdown(report["corpora"]), ""]
    mc = report["memconflict"]
    parts += ["## MemConflict probes (state memory)", ""]
    if "skipped" in mc:
        parts += [mc["skipped"][0].upper() + mc["skipped"][1:] + ".", ""]
    else:
        parts += [f"{mc['personas']} persona(s), controller {mc['controller']}.", "",
                  rpt.md_table(["probe", "score", "n"],
                               [[k, v["score"], v["n"]] for k, v in mc["probes"].items()]), ""]
    ex = report["experience"]
    parts += ["## Experience memory (ScienceWorld)", "",
              f"Train tasks {ex['train_tasks']}, dev tasks {ex['dev_tasks']}; {ex['explorations']}.", "",
              f"- same-task-type hit@5 on dev: **{ex['same_type']['hit@5']}** "
              f"(median recall {ex['same_type']['recall_ms_median']} ms)"]
    if "ged" in ex:
        g = ex["ged"]
        parts.append(f"- edit-path length / exact GED: median {g['median_ratio']}, mean {g['mean_ratio']}, "
                     f"share ≤ 1.1: {g['share_within_1_1']} ({g['exact_finished']} pairs solved exactly, "
                     f"{g['exact_timed_out']} timed out)")
    parts.append(f"- FGW matching: median {ex['fgw']['median_ms']} ms per pair; by size {ex['fgw']['by_max_nodes']}")
    if "correction" in ex:
        c = ex["correction"]
        parts.append(f"- correction hit rate ({c['cases']} cases): EMG {c['emg_hit_rate']}, intra-only "
                     f"{c['emg_intra_only_hit_rate']}, nearest expert {c['baseline_nearest_expert_hit_rate']}, "
                     f"top-{c['k']} experts {c['baseline_top_k_experts_hit_rate']}")
    ins = report["insight"]
    parts += ["", "## Insight replay (FEVER)", "", ins["note"] + ".", "",
              rpt.md_table(["λ", "tasks", "added", "kept", "archived", "revised", "retrieved",
                            "same-kind share", "in subgraph", "active", "s"],
                           [[r["lambda"], r["tasks"], r["added"], r["kept"], r["archived"], r["revised"],
                             r["retrieved"], r["same_kind_share"], r["same_kind_share_in_subgraph"],
                             r["active_insights"], r["seconds"]] for r in ins["runs"]]), ""]
    parts += ["## Plots", ""] + [f"![{p}]({p})" for p in report["plots"]] + ["", rpt.config_md(report["config"]), ""]
    return "\n".join(parts)

"""Cost of exporting a large namespace and importing it into another: prints one JSON document.

The namespace (``--namespace``, default ``bench-exim-<units>``; reused when it already holds the
units) gets about ``--units`` memory units (state Events plus associative Episodes, half each):
the first ``--real-turns`` turns of the bundled LoCoMo conversation through state and
associative memory (every label and relationship those memories write: topics, states, people,
cues, tags, themes, ...), then filler units up to the total -- the bundled LoCoMo turns
repeated, text and vector perturbed as ``graphmem bench`` does (:mod:`graphmem.evaluation.filler`:
encoded once, ``normalise(v + N(0, 0.02²))``), each copy a session of its own linked by
NEXT_TURN with ``prev_id`` / ``next_id`` (``cypher/bench/link_units``).

Then, each in a process of its own (so each peak RSS is that step's): ``export_namespace`` to
a file, and ``import_namespace`` of the file into ``<namespace>-copy`` (another name: every id is
re-derived or mapped); then node and relationship counts of the two are compared. Prints the
seconds of export and import, the file's MB, each step's peak RSS (MB, the process's
``VmHWM``; with its RSS before the step began, imports included), counts.
The copy is deleted at the end (``--keep`` keeps it; the source is always kept for reuse).

Uses the Neo4j of the environment (``NEO4J_URI``, else the local launcher of
``GRAPHMEM_HOME``)::

    python benchmarks/export_import.py --units 100000 [--file /tmp/ns.jsonl] [--keep]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from graphmem.progress import quiet_model_loading

quiet_model_loading()  # before anything imports transformers

import numpy as np  # noqa: E402

from graphmem.conversations import read_locomo  # noqa: E402
from graphmem.datasets import resolve  # noqa: E402
from graphmem.evaluation.filler import perturb_text, perturb_vectors  # noqa: E402
from graphmem.evaluation.locomo import truncate_conversation, turn_text  # noqa: E402
from graphmem.facade import GraphMemory  # noqa: E402
from graphmem.names import node_id  # noqa: E402
from graphmem.retrieval import unit_rows  # noqa: E402
from graphmem.timeparse import time_param  # noqa: E402

BATCH = 1000


def rss_mb() -> float | None:
    """This process's resident set size now, MB (``VmRSS``; None off Linux)."""
    status = Path("/proc/self/status")
    for line in status.read_text().splitlines() if status.exists() else []:
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def peak_rss_mb() -> float:
    """This process's peak resident set size, MB: ``VmHWM`` of ``/proc/self/status`` on Linux
    (``ru_maxrss`` survives ``exec`` there, so a child would report its parent's peak), else
    ``ru_maxrss`` (KiB on Linux, bytes on macOS)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale, 1)


def units(mem: GraphMemory) -> int:
    """Events plus Episodes of the namespace."""
    row = mem.query("bench/count_units")[0]
    return int(row["events"]) + int(row["episodes"])


def build(mem: GraphMemory, total: int, real_turns: int, seed: int) -> dict:
    """Fill ``mem``'s namespace up to ``total`` units (see the module docstring)."""
    began = time.perf_counter()
    conversations = read_locomo(resolve("locomo"))
    real = truncate_conversation(conversations[0], real_turns)
    mem.state.ingest([real])
    mem.associative.ingest([real])
    turns = [t for c in conversations for t in c.turns]
    base = np.asarray(mem.embedder.embed_documents([turn_text(t) for t in turns]))
    rng = np.random.default_rng(seed)
    copy = 0
    while units(mem) < total:
        need = (total - units(mem) + 1) // 2
        n = min(len(turns), need)
        vecs = perturb_vectors(base[:n], rng)
        texts = [perturb_text(turn_text(t), rng, copy) for t in turns[:n]]
        lexical = unit_rows([{"speaker": None, "text": x, "timestamp": t.timestamp}
                             for t, x in zip(turns[:n], texts, strict=True)], None, mem.namespace)
        for kind, label in (("fill-event", "Event"), ("fill-episode", "Episode")):
            rows = [{"id": node_id(mem.namespace, kind, copy, i), "conversation": f"fill-{copy}",
                     "text": text, "speaker": t.speaker, "source_ids": [t.source_id],
                     "source_id": t.source_id, "occurred_at": time_param(t.timestamp),
                     "embedding": vec.tolist(),
                     **{k: lexical[i][k] for k in ("lexical_terms", "lexical_length", "ns_token")}}
                    for i, (t, text, vec) in enumerate(zip(turns[:n], texts, vecs, strict=True))]
            links = [{"prev": rows[i - 1]["id"], "next": rows[i]["id"]} for i in range(1, n)]
            for start in range(0, n, BATCH):
                mem.query(f"bench/write_{label.lower()}s", rows=rows[start:start + BATCH])
            for start in range(0, len(links), BATCH):
                mem.query(f"bench/link_units@{label}", rows=links[start:start + BATCH])
        copy += 1
    return {"build_seconds": round(time.perf_counter() - began, 1), "filler_copies": copy}


def phase(args: argparse.Namespace) -> dict:
    """One step in this process: ``export`` or ``import``."""
    with GraphMemory.from_settings(namespace=args.namespace, migrate=True) as mem:
        before = rss_mb()
        if args.phase == "export":
            report = mem.export_namespace(args.file)
            return {"seconds": report.seconds, "bytes": report.bytes,
                    "nodes": sum(report.nodes.values()),
                    "relationships": sum(report.relationships.values()),
                    "rss_before_mb": before, "peak_rss_mb": peak_rss_mb()}
        target = mem.scoped(f"{args.namespace}-copy")
        target.delete_namespace()
        report = target.import_namespace(args.file)
        return {"seconds": report.seconds, "rederived": sum(report.rederived.values()),
                "mapped": sum(report.mapped.values()), "rss_before_mb": before,
                "peak_rss_mb": peak_rss_mb()}


def run_phase(args: argparse.Namespace, name: str) -> dict:
    """Run :func:`phase` ``name`` in a child process and return its JSON."""
    out = subprocess.run([sys.executable, __file__, "--phase", name, "--namespace",
                          args.namespace, "--file", str(args.file)],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--units", type=int, default=100_000,
                         help="memory units (Events + Episodes) in the namespace")
    options.add_argument("--real-turns", type=int, default=200,
                         help="LoCoMo turns ingested for real through state and associative")
    options.add_argument("--namespace", default=None, help="default bench-exim-<units>")
    options.add_argument("--file", type=Path, default=None,
                         help="where the export goes (default: a temporary folder)")
    options.add_argument("--seed", type=int, default=0)
    options.add_argument("--keep", action="store_true", help="keep the imported copy")
    options.add_argument("--phase", choices=("export", "import"), help=argparse.SUPPRESS)
    args = options.parse_args()
    args.namespace = args.namespace or f"bench-exim-{args.units}"
    if args.phase:
        print(json.dumps(phase(args)))
        return
    with tempfile.TemporaryDirectory() as scratch:
        args.file = args.file or Path(scratch) / f"{args.namespace}.jsonl"
        out: dict = {"namespace": args.namespace, "units_requested": args.units}
        with GraphMemory.from_settings(namespace=args.namespace, migrate=True) as mem:
            held = units(mem)
            out.update(build(mem, args.units, args.real_turns, args.seed) if held < args.units
                       else {"build_seconds": 0.0, "reused": True})
            out["units"] = units(mem)
            export = run_phase(args, "export")
            imported = run_phase(args, "import")
            copy = mem.scoped(f"{args.namespace}-copy")
            out.update({
                "nodes": export["nodes"], "relationships": export["relationships"],
                "file_mb": round(export["bytes"] / 1e6, 1),
                "export_seconds": export["seconds"], "import_seconds": imported["seconds"],
                "export_peak_rss_mb": export["peak_rss_mb"],
                "import_peak_rss_mb": imported["peak_rss_mb"],
                "rss_before_export_mb": export["rss_before_mb"],
                "rss_before_import_mb": imported["rss_before_mb"],
                "ids_rederived": imported["rederived"], "ids_mapped": imported["mapped"],
                "counts_equal": mem.counts() == copy.counts(),
                "relationship_counts_equal":
                    mem.relationship_counts() == copy.relationship_counts()})
            if not args.keep:
                copy.delete_namespace()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

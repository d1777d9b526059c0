"""Cold one-shot CLI vs a warm ``graphmem shell``: prints the warm-process section
(:func:`graphmem.evaluation.warm.warm_process_section`) as one JSON document.

Uses the Neo4j of the environment (``NEO4J_URI``, else the local launcher of ``GRAPHMEM_HOME``).
With ``--ingest`` the LoCoMo conversation (default conv-26 of the bundled sample) is ingested
into the namespace first with ``graphmem state ingest`` and ``graphmem associative ingest``
(re-running skips what is stored). The questions are the conversation's own QA questions.

    GRAPHMEM_HOME=/tmp/h GRAPHMEM_BOLT_PORT=7790 GRAPHMEM_BROWSER_PORT=0 graphmem neo4j start
    GRAPHMEM_HOME=/tmp/h GRAPHMEM_BOLT_PORT=7790 GRAPHMEM_BROWSER_PORT=0 \\
        python benchmarks/warm_process.py --ingest --namespace conv-26 --questions 40
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

from graphmem.progress import quiet_model_loading

quiet_model_loading()  # before anything imports transformers

from graphmem.cli.eval import set_torch_threads  # noqa: E402
from graphmem.conversations import read_locomo  # noqa: E402
from graphmem.datasets import resolve  # noqa: E402
from graphmem.evaluation.warm import cli_argv, warm_process_section  # noqa: E402
from graphmem.facade import GraphMemory  # noqa: E402


def conversation_file(locomo: Path, sample_id: str, folder: Path) -> Path:
    """A LoCoMo file holding only conversation ``sample_id`` of ``locomo``."""
    data = [c for c in json.loads(locomo.read_text()) if c["sample_id"] == sample_id]
    if not data:
        raise SystemExit(f"{locomo} holds no conversation {sample_id!r}")
    path = folder / f"{sample_id}.json"
    path.write_text(json.dumps(data))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=None,
                        help="LoCoMo file (default: the bundled sample)")
    parser.add_argument("--conversation", default="conv-26", help="sample_id to use")
    parser.add_argument("--namespace", default="warm-conv-26", help="namespace holding it")
    parser.add_argument("--ingest", action="store_true", help="ingest it first (idempotent)")
    parser.add_argument("--questions", type=int, default=40, help="timed questions")
    parser.add_argument("--warmup", type=int, default=3,
                        help="untimed warm-up questions before the timed ones")
    parser.add_argument("--cold-repeats", type=int, default=3, help="runs per one-shot command")
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="torch threads in this process and the shell (0 = torch default)")
    args = parser.parse_args()
    locomo = args.locomo or resolve("locomo")
    with tempfile.TemporaryDirectory() as tmp:
        path = conversation_file(locomo, args.conversation, Path(tmp))
        if args.ingest:
            for memory in ("state", "associative"):
                subprocess.run(cli_argv(memory, "ingest", str(path), "-n", args.namespace,
                                        "--json"), check=True, stdout=subprocess.DEVNULL)
        conv = read_locomo(path)[0]
    questions = [qa.question for qa in conv.qa if qa.question.strip()]
    questions = questions[: args.warmup + args.questions]  # warm-up ones first
    set_torch_threads(args.torch_threads)
    with GraphMemory.from_settings(migrate=True) as mem:
        section = warm_process_section(mem, args.namespace, questions, warmup=args.warmup,
                                       cold_repeats=args.cold_repeats,
                                       torch_threads=args.torch_threads)
    print(json.dumps(section, indent=2))


if __name__ == "__main__":
    main()

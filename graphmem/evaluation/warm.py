"""What a warm process saves: the same recalls timed in this process and through a running
``graphmem shell`` (driven over a pipe), and the wall time of one-shot CLI commands.

The warm path is ``graphmem shell`` rather than the MCP server because it runs the very command
lines a person types (``state recall ... --json``, ``associative recall ... --json``: the same
parsing, facade and serialisation as the one-shot CLI whose cold time is measured beside it),
and it serves both memories' own recalls (the MCP server has ``recall_state`` and the fused
``recall``, no associative-only tool). The shell is started with ``--marker`` so that the end of
each command's output and its exit code are one line on the pipe.

    from graphmem.evaluation.warm import warm_process_section
    section = warm_process_section(mem, "conv-26", questions[:43], warmup=3)
    section["state"]["ratio_p50"]          # warm / in-process at p50 (target <= 1.2)
"""

from __future__ import annotations

import json
import logging
import os
import queue
import shlex
import statistics
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphmem.errors import GraphmemError, InvalidInputError
from graphmem.evaluation.metrics import check_target, percentiles, ratio
from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: The target of the warm path: p50 of warm / in-process recall latency at most this.
TARGET_RATIO_P50 = 1.2
#: Marker line the driven shell prints after each command (``MARKER <exit code>``).
MARKER = "@@graphmem-shell-done"
#: The memories whose recalls are compared.
MEMORIES = ("state", "associative")


def cli_argv(*args: str) -> list[str]:
    """The command line of ``graphmem ARGS`` with this interpreter (``python -m
    graphmem.cli.main``, what the ``graphmem`` script runs)."""
    return [sys.executable, "-m", "graphmem.cli.main", *args]


def server_env(server: Mapping[str, Any], base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a CLI subprocess that talks to ``server`` (the bench's
    ``{"uri", "username", "password", "database"}``), on top of ``base`` (default
    ``os.environ``)."""
    env = dict(os.environ if base is None else base)
    env.update(NEO4J_URI=str(server["uri"]), NEO4J_USERNAME=str(server.get("username") or "neo4j"),
               NEO4J_PASSWORD=str(server.get("password") or ""),
               NEO4J_DATABASE=str(server.get("database") or "neo4j"))
    return env


class ShellClient:
    """A ``graphmem shell --marker`` subprocess, one command line at a time.

    Args:
        namespace: the shell's namespace. env: its environment (Neo4j settings).
        torch_threads: passed as ``--torch-threads``. timeout_s: per command and for the start.
    Attributes:
        start_seconds: from spawning until the shell was ready (connection opened, memories
            and model loaded).
    Raises:
        GraphmemError: the shell ended or did not answer within ``timeout_s`` (with the end of
            its stderr).
    """

    def __init__(self, namespace: str, env: Mapping[str, str] | None = None, *,
                 torch_threads: int = 1, timeout_s: float = 300.0):
        self.timeout_s = timeout_s
        began = time.perf_counter()
        self.proc = subprocess.Popen(
            cli_argv("shell", "-n", namespace, "--marker", MARKER, "--torch-threads",
                     str(torch_threads)),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            bufsize=1, env=dict(os.environ if env is None else env))
        self._answers: queue.Queue[tuple[int, str] | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=40)
        threading.Thread(target=self._read_answers, args=(self.proc.stdout,), daemon=True,
                         name="shell stdout").start()
        threading.Thread(target=self._read_stderr, args=(self.proc.stderr,), daemon=True,
                         name="shell stderr").start()
        try:
            self._answer()
        except BaseException:
            self.close()
            raise
        self.start_seconds = time.perf_counter() - began

    def _read_answers(self, stream: Any) -> None:
        """Collect stdout up to each marker line: one ``(exit code, output)`` per command."""
        out: list[str] = []
        for line in stream:
            if line.startswith(MARKER + " "):
                self._answers.put((int(line.split()[-1]), "".join(out)))
                out = []
            else:
                out.append(line)
        self._answers.put(None)

    def _read_stderr(self, stream: Any) -> None:
        for line in stream:
            self._stderr.append(line)

    def _answer(self) -> tuple[int, str]:
        try:
            answer = self._answers.get(timeout=self.timeout_s)
        except queue.Empty:
            raise GraphmemError(f"graphmem shell did not answer within {self.timeout_s:g} s: "
                                f"{self.stderr_tail()}") from None
        if answer is None:
            raise GraphmemError(f"graphmem shell ended (exit {self.proc.wait()}): "
                                f"{self.stderr_tail()}")
        return answer

    def stderr_tail(self) -> str:
        """The last lines the shell wrote on stderr, joined on one line."""
        return " | ".join(line.strip() for line in list(self._stderr)[-5:]) or "(no stderr)"

    def run(self, args: Sequence[str]) -> tuple[int, str]:
        """Run one command line (``args`` without ``graphmem``); ``(exit code, stdout)``."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(shlex.join(args) + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def close(self) -> int:
        """Leave the shell (``exit``) and return its exit code."""
        try:
            if self.proc.poll() is None and self.proc.stdin is not None:
                self.proc.stdin.write("exit\n")
                self.proc.stdin.close()
            return self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            return self.proc.wait()


def recall_calls(mem: GraphMemory, k: int) -> dict[str, tuple[Callable[[str], Any], Callable[[str], list[str]]]]:
    """Per memory: the in-process recall with the memory's defaults (the CLI commands' defaults
    are the same: tests/unit/evaluation/test_warm.py), and the CLI line for a question.
    Returns ``{memory: (recall(question) -> result, line(question) -> args)}``."""
    ns = mem.namespace
    return {
        "state": (lambda q: mem.state.recall(q, k=k),
                  lambda q: ["state", "recall", q, "-n", ns, "-k", str(k), "--json"]),
        "associative": (lambda q: mem.associative.recall(q, k=k),
                        lambda q: ["associative", "recall", q, "-n", ns, "-k", str(k), "--json"]),
    }


def summarize(in_process_ms: Sequence[float], warm_ms: Sequence[float],
              same: Sequence[bool]) -> dict[str, Any]:
    """Latency summary of paired timings (one pair per question, ms): p50/p95 of each path,
    warm / in-process at p50 and p95, the median per-question overhead, the share of questions
    where both paths returned the same item ids in the same order, and the target check.

    Raises:
        InvalidInputError: no timings, or the sequences differ in length.
    """
    if not in_process_ms or len(in_process_ms) != len(warm_ms) or len(warm_ms) != len(same):
        raise InvalidInputError(f"paired timings needed, got {len(in_process_ms)} in-process, "
                                f"{len(warm_ms)} warm and {len(same)} comparisons")
    inp, warm = percentiles(in_process_ms), percentiles(warm_ms)
    return {
        "in_process_ms": inp, "warm_ms": warm,
        "ratio_p50": ratio(warm["p50"], inp["p50"]), "ratio_p95": ratio(warm["p95"], inp["p95"]),
        "overhead_ms_p50": round(statistics.median(w - i for w, i in zip(warm_ms, in_process_ms)), 3),
        "same_items": round(sum(same) / len(same), 3),
        "target": check_target(ratio(warm["p50"], inp["p50"]), TARGET_RATIO_P50),
    }


def _item_ids(result: Any) -> list[str]:
    return [item.id for item in result.items]


def _json_ids(stdout: str) -> list[str]:
    return [item["id"] for item in json.loads(stdout)["items"]]


def cold_cli_times(commands: Mapping[str, Sequence[str]], env: Mapping[str, str] | None = None,
                   repeats: int = 3, timeout_s: float = 300.0) -> dict[str, Any]:
    """Wall seconds of one-shot ``graphmem`` commands, each run ``repeats`` times in a new
    process: ``{name: {"argv", "seconds": [...], "min", "median", "exit_codes"}}``.

    Raises:
        GraphmemError: a command other than ``neo4j status`` (exit 1 when the local Neo4j is
            not the server in use) failed, with the end of its stderr.
    """
    out: dict[str, Any] = {}
    for name, args in commands.items():
        seconds, codes = [], []
        for _ in range(repeats):
            began = time.perf_counter()
            proc = subprocess.run(cli_argv(*args), env=dict(os.environ if env is None else env),
                                  capture_output=True, text=True, timeout=timeout_s)
            seconds.append(round(time.perf_counter() - began, 3))
            codes.append(proc.returncode)
            allowed = (0, 1) if list(args[:2]) == ["neo4j", "status"] else (0,)
            if proc.returncode not in allowed:
                tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
                raise GraphmemError(f"graphmem {shlex.join(args)} exited {proc.returncode}: {tail}")
        out[name] = {"argv": ["graphmem", *args], "seconds": seconds, "min": min(seconds),
                     "median": round(statistics.median(seconds), 3), "exit_codes": codes}
    return out


def warm_process_section(mem: GraphMemory, namespace: str, questions: Sequence[str], *,
                         k: int = 10, warmup: int = 3, cold_repeats: int = 3,
                         env: Mapping[str, str] | None = None, torch_threads: int | None = None,
                         timeout_s: float = 300.0) -> dict[str, Any]:
    """Recall latency in this process vs through a warm ``graphmem shell`` over a pipe, for
    state and associative memory (k items, each CLI command's default rounds/structure), and the
    one-shot CLI wall time of ``graphmem --help``, ``graphmem neo4j status`` and a cold
    ``graphmem state recall``.

    The first ``warmup`` questions warm both paths up untimed; both paths then run each of the
    others, in alternating order (even questions in-process first), so no timed question was
    asked before (a facade caches recent query vectors). The shell's time is from writing the
    line to reading its marker (parsing, recall, JSON output, pipe).

    Args:
        mem: a facade on the server holding ``namespace`` (its embedder is used in-process).
        namespace: where the ingested conversation is (state and associative memory).
        questions: ``warmup`` warm-up questions, then the timed ones (each once per path and
            memory).
        k: items per recall. warmup: how many of ``questions`` warm up, untimed.
        cold_repeats: runs of each one-shot command.
        env: environment of the subprocesses; it must point them at ``mem``'s server (see
            :func:`server_env`; default ``os.environ``).
        torch_threads: the shell's ``--torch-threads`` (default: this process's torch threads
            when torch is loaded, else 1), so both paths encode alike.
    Returns:
        ``{"driver", "namespace", "k", "questions", "warmup", "shell_start_s", "shell_exit",
        "state": summary, "associative": summary, "cold_cli_s": {...}, "targets": {...}}`` with
        the summaries of :func:`summarize` (ms).
    Raises:
        InvalidInputError: no question left to time after the warm-up, bad ``k`` /
            ``warmup`` / ``cold_repeats``, or the namespace holds no state or associative
            memory.
        GraphmemError: the shell or a one-shot command failed.
    """
    questions = list(questions)
    if not questions or not all(isinstance(q, str) and q.strip() for q in questions):
        raise InvalidInputError(f"questions must be non-empty strings, got {questions[:3]!r}...")
    for name, value, low in (("k", k, 1), ("warmup", warmup, 0), ("cold_repeats", cold_repeats, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidInputError(f"{name} must be an integer >= {low}, got {value!r}")
    if len(questions) <= warmup:
        raise InvalidInputError(f"{len(questions)} questions leave none to time after "
                                f"{warmup} warm-up questions")
    target = mem.scoped(namespace)
    for memory in MEMORIES:
        if not sum(target.memory(memory).counts().values()):
            raise InvalidInputError(f"namespace {namespace!r} holds no {memory} memory: ingest "
                                    f"a conversation first (graphmem {memory} ingest FILE -n "
                                    f"{namespace})")
    if torch_threads is None:
        torch = sys.modules.get("torch")
        torch_threads = int(torch.get_num_threads()) if torch is not None else 1
    calls = recall_calls(target, k)
    shell = ShellClient(namespace, env, torch_threads=torch_threads, timeout_s=timeout_s)
    timings: dict[str, dict[str, list]] = {m: {"in": [], "warm": [], "same": []} for m in MEMORIES}
    try:
        for i, question in enumerate(questions):
            timed = i >= warmup
            for memory, (recall, line) in calls.items():
                results: dict[str, Any] = {}
                for path in (("in", "warm") if i % 2 == 0 else ("warm", "in")):
                    began = time.perf_counter()
                    if path == "in":
                        results["in"] = recall(question)
                    else:
                        code, stdout = shell.run(line(question))
                        results["warm"] = (code, stdout)
                    elapsed = (time.perf_counter() - began) * 1000
                    if timed:
                        timings[memory][path].append(elapsed)
                code, stdout = results["warm"]
                if code != 0:
                    raise GraphmemError(f"graphmem {shlex.join(line(question))} exited {code} "
                                        f"in the shell: {shell.stderr_tail()}")
                if timed:
                    timings[memory]["same"].append(_item_ids(results["in"]) == _json_ids(stdout))
    finally:
        shell_exit = shell.close()
    section: dict[str, Any] = {
        "driver": "graphmem shell over a pipe (--marker), one process for all questions",
        "namespace": namespace, "k": k, "questions": len(questions) - warmup, "warmup": warmup,
        "torch_threads": torch_threads, "shell_start_s": round(shell.start_seconds, 2),
        "shell_exit": shell_exit,
    }
    for memory in MEMORIES:
        t = timings[memory]
        section[memory] = summarize(t["in"], t["warm"], t["same"])
    section["cold_cli_s"] = cold_cli_times({
        "graphmem --help": ["--help"],
        "graphmem neo4j status": ["neo4j", "status"],
        "graphmem state recall (cold)": ["state", "recall", questions[warmup], "-n", namespace,
                                         "-k", str(k), "--json"],
    }, env, repeats=cold_repeats, timeout_s=timeout_s)
    section["targets"] = {f"{m} warm/in-process p50": section[m]["target"] for m in MEMORIES}
    logger.info("warm process: state p50 ratio %s, associative %s", section["state"]["ratio_p50"],
                section["associative"]["ratio_p50"])
    return section

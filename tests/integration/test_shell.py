"""``graphmem shell`` against a real Neo4j: in a pseudo-terminal (pexpect) a person ingests,
recalls and mistypes; over a pipe a program drives it line by line with ``--marker`` and gets
each command's output and exit code; and the one-shot commands that connect but embed nothing
(migrate, memories, namespaces, doctor) never load torch."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

import pexpect  # noqa: E402  (the test extra installs it)

from graphmem.conversations import read_locomo  # noqa: E402
from graphmem.facade import GraphMemory  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TURNS = 24
QUESTION = "When did Caroline go to the LGBTQ support group?"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first conversation of the bundled LoCoMo sample cut to its first sessions' first
    ``TURNS`` turns (D1:3 is Caroline's support group turn)."""
    from reliability import locomo_prefix_file

    return locomo_prefix_file(tmp_path_factory.mktemp("locomo"), TURNS, "locomo-short.json")


@pytest.fixture(scope="module")
def ingested(runner, embedder, sample) -> str:
    """A namespace holding the sample in state memory (ingested in this process)."""
    ns = f"test-shell-{uuid.uuid4().hex[:10]}"
    GraphMemory(runner, embedder, namespace=ns).state.ingest(read_locomo(sample))
    yield ns
    runner.write("core/delete_namespace", namespace=ns)


@pytest.fixture
def env(neo4j_server: dict) -> dict[str, str]:
    return {**os.environ, "NEO4J_URI": neo4j_server["uri"],
            "NEO4J_USERNAME": neo4j_server["username"] or "neo4j",
            "NEO4J_PASSWORD": neo4j_server["password"] or "",
            "NEO4J_DATABASE": neo4j_server["database"], "HF_HUB_OFFLINE": "1",
            "COLUMNS": "120", "PYTHONPATH": str(ROOT)}


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "")


def test_shell_in_a_terminal_ingests_recalls_and_reports_a_bad_command(env, sample, runner) -> None:
    ns = f"test-shell-{uuid.uuid4().hex[:10]}"
    prompt = f"graphmem:{ns}> "
    child = pexpect.spawn(sys.executable, ["-m", "graphmem.cli.main", "shell", "-n", ns],
                          env=env, encoding="utf-8", timeout=240, dimensions=(40, 120))
    try:
        child.expect_exact(prompt)
        assert re.search(r"model loaded in [0-9.]+ s", _plain(child.before))
        child.sendline(f"state ingest {sample}")
        child.expect_exact(prompt)
        created = re.search(r"created [^;(]*?(\d+) Event", _plain(child.before))
        assert created and int(created.group(1)) == TURNS, _plain(child.before)[-2000:]
        child.sendline(f'state recall "{QUESTION}" -k 3')
        child.expect_exact(prompt)
        screen = _plain(child.before)
        assert "state recall" in screen and "D1:3" in screen and "LLM calls: 0" in screen, screen
        child.sendline("state recal x")
        child.expect_exact(prompt)
        assert "No such command 'recal'" in _plain(child.before)
        child.sendline('state recall "   "')
        child.expect_exact(prompt)
        error = _plain(child.before).strip().splitlines()
        assert error[-1].startswith("error: empty text — ") and "Traceback" not in child.before
        child.sendline("exit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
        runner.write("core/delete_namespace", namespace=ns)
    assert child.exitstatus == 2  # the last command's code, like sh


def _drive(lines: list[str], env: dict, *options: str, ns: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graphmem.cli.main", "shell", "-n", ns,
                           "--marker", "@@", *options], input="\n".join(lines) + "\n",
                          env=env, capture_output=True, text=True, timeout=300)


def _outputs(stdout: str) -> list[tuple[int, str]]:
    """(exit code, output) per marker, the ready marker first."""
    parts, out = [], []
    for line in stdout.splitlines(keepends=True):
        if line.startswith("@@ "):
            parts.append((int(line.split()[1]), "".join(out)))
            out = []
        else:
            out.append(line)
    assert not "".join(out).strip(), f"output after the last marker: {out}"
    return parts


def test_shell_over_a_pipe_runs_one_command_per_line(env, ingested) -> None:
    lines = [f"state recall '{QUESTION}' -k 3 --json", "# a comment", "bogus",
             "state recall 'unclosed", "mcp -n x", f"memories -n {ingested} --json",
             f"state recall '{QUESTION}' -k 3 --json -n other-{ingested}"]
    proc = _drive(lines, env, ns=ingested)
    assert proc.returncode == 0, proc.stderr[-3000:]  # the last command succeeded
    parts = _outputs(proc.stdout)
    assert [code for code, _ in parts] == [0, 0, 0, 2, 2, 2, 0, 0]
    first = json.loads(parts[1][1])
    assert first["namespace"] == ingested and len(first["items"]) == 3
    assert "D1:3" in first["items"][0]["source_ids"]
    counts = {m["memory"]: m["counts"] for m in json.loads(parts[6][1])}
    assert counts["state"]["Event"] == TURNS and counts["associative"]["Episode"] == 0
    assert json.loads(parts[7][1])["items"] == []  # -n on the line wins over the shell's
    errors = [line for line in proc.stderr.splitlines() if line.strip()]
    assert "No such command 'bogus'" in proc.stderr
    assert any(e.startswith("error: invalid input — cannot split") for e in errors)
    assert any("'mcp' cannot run inside graphmem shell" in e for e in errors)
    assert "Traceback" not in proc.stderr


def test_exit_on_error_stops_at_the_first_failure(env, ingested) -> None:
    proc = _drive(["namespaces --json", "state recall '  '", "namespaces --json"], env,
                  "--exit-on-error", "--no-preload", ns=ingested)
    assert proc.returncode == 2
    parts = _outputs(proc.stdout)
    assert [code for code, _ in parts] == [0, 0, 2]
    assert ingested in json.loads(parts[1][1])
    assert proc.stderr.strip().startswith("error: empty text")


def test_commands_that_embed_nothing_load_no_torch(env, ingested) -> None:
    lines = [["migrate", "--status"], ["migrate"], ["memories"], ["memories", "-n", ingested,
             "--json"], ["namespaces"], ["namespaces", "--json"], ["doctor", "-n", ingested],
             ["doctor", "-n", ingested, "--json"], ["neo4j", "status"]]
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "import_probe.py"),
                           json.dumps(lines)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout)
    for r in results:
        heavy = [m for m in r["loaded"] if m != "neo4j"]
        assert heavy == [], f"graphmem {' '.join(r['args'])} loaded {heavy}"
        if r["args"][0] != "neo4j":
            assert r["exit_code"] == 0, (r["args"], r["output"])
    by_args = {tuple(r["args"]): r for r in results}
    counts = {m["memory"]: m["counts"] for m in
              json.loads(by_args[("memories", "-n", ingested, "--json")]["output"])}
    assert counts["state"]["Event"] == TURNS
    report = json.loads(by_args[("doctor", "-n", ingested, "--json")]["output"])
    assert report["namespaces"] == [ingested] and report["findings"] == []
    assert "neo4j" in by_args[("namespaces",)]["loaded"]  # it did connect

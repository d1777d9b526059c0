"""The command line as a person meets it, in a pseudo-terminal (pexpect): progress appears
within 2 s of starting an ingest, Ctrl-C prints what was committed and the command that
resumes (exit 130), a recall on an empty namespace says so and lists the namespaces that hold
memory; and for every memory the counts an ingest prints (the command run in-process) equal a
count query afterwards."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

import pexpect  # noqa: E402  (the test extra installs it)

from graphmem import datasets  # noqa: E402
from graphmem.memory import memory_spec  # noqa: E402

TURNS = 40


@pytest.fixture(scope="module")
def locomo_conversation(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The first conversation of the packaged LoCoMo sample, whole, and its turn count: long
    enough (hundreds of turns) that an interrupt sent at the first progress line always lands
    while the ingest is running."""
    from graphmem.conversations import read_locomo

    data = json.loads(datasets.resolve("locomo").read_text())
    path = tmp_path_factory.mktemp("locomo") / "locomo-one.json"
    path.write_text(json.dumps(data[:1]))
    return path, len(read_locomo(path)[0].turns)


@pytest.fixture
def env(neo4j_server: dict) -> dict[str, str]:
    """The environment of a CLI run against the test server."""
    return {**os.environ, "NEO4J_URI": neo4j_server["uri"],
            "NEO4J_USERNAME": neo4j_server["username"] or "neo4j",
            "NEO4J_PASSWORD": neo4j_server["password"] or "", "HF_HUB_OFFLINE": "1",
            "COLUMNS": "120", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


@pytest.fixture(scope="module")
def locomo_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first conversation of the packaged LoCoMo sample, cut to its first 40 turns."""
    from reliability import locomo_prefix_file

    return locomo_prefix_file(tmp_path_factory.mktemp("locomo"), TURNS, "locomo-40.json")


@pytest.fixture
def namespaces(runner):
    """Fresh namespaces on demand, deleted afterwards."""
    made: list[str] = []

    def new() -> str:
        made.append(f"test-cli-{uuid.uuid4().hex[:10]}")
        return made[-1]

    yield new
    for ns in made:
        runner.write("core/delete_namespace", namespace=ns)


def _default_sigint() -> None:
    """In the child: Ctrl-C as a terminal delivers it. A process started in the background by a
    shell without job control inherits SIGINT ignored (and Python then installs no handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _spawn(args: list[str], env: dict) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "graphmem.cli.main", *args], env=env,
                         encoding="utf-8", timeout=240, dimensions=(40, 120),
                         preexec_fn=_default_sigint)


def _plain(text: str) -> str:
    """Screen text without ANSI sequences or carriage returns."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "")


def _run(args: list[str], env: dict, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graphmem.cli.main", *args], env=env,
                          capture_output=True, text=True, timeout=timeout)


def _stored(runner, namespace: str) -> dict[str, int]:
    return {r["label"]: r["nodes"]
            for r in runner.read("core/count_namespace_nodes", namespace=namespace)}


def test_ingest_progress_ctrl_c_and_resume(env, locomo_conversation, namespaces, runner) -> None:
    path, turns = locomo_conversation
    ns = namespaces()
    args = ["state", "ingest", str(path), "-n", ns]
    child = _spawn(args, env)
    child.expect(r"state ingest")  # the progress line comes before the first committed turn
    child.expect(rf"0/{turns}")
    child.kill(signal.SIGINT)  # at the first progress line: the ingest is running
    child.expect(pexpect.EOF)
    child.close()
    screen = _plain(child.before)
    assert child.exitstatus == 130, screen[-2000:]
    # the database's count once the ingest runs; before (still connecting) the progress
    # count, as the lower bound it is
    summary = re.search(rf"interrupted — state ingest: (?:at least )?(\d+) of {turns} turns "
                        r"committed — "
                        r"resume with: graphmem (.+?) \(what is stored is skipped\)", screen)
    assert summary, screen[-2000:]
    assert int(summary.group(1)) < turns
    assert summary.group(2).split() == args
    assert "Traceback" not in screen
    done = _run(args, env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _stored(runner, ns).get("Event") == turns


def test_recall_on_an_empty_namespace_says_so(env, locomo_sample, namespaces, runner,
                                              embedder) -> None:
    from graphmem.conversations import read_locomo
    from graphmem.facade import GraphMemory

    full, empty = namespaces(), namespaces()
    GraphMemory(runner, embedder, full).associative.ingest(read_locomo(locomo_sample))
    child = _spawn(["associative", "recall", "what did Caroline research?", "-n", empty], env)
    child.expect(pexpect.EOF)
    child.close()
    screen = " ".join(_plain(child.before).split())
    assert child.exitstatus == 0, screen
    assert f"namespace '{empty}' holds no associative memory" in screen
    assert full in screen, screen
    child = _spawn(["associative", "recall", "what did Caroline research?", "-n", full], env)
    child.expect(pexpect.EOF)
    screen = _plain(child.before)
    assert "associative recall" in screen and "rank" in screen and "sources" in screen


def _feedback_file(tmp_path: Path) -> Path:
    lines = [json.loads(x) for x in
             datasets.resolve("fever").read_text().splitlines()[:4]]
    path = tmp_path / "feedback.jsonl"
    path.write_text("\n".join(json.dumps({
        "query": f"Verify the claim: {x['claim']}", "task_id": f"fever-{x['id']}",
        "status": "resolved" if i % 2 == 0 else "failed",
        "trajectory": [f"search {x['claim'][:40]}", f"answer {x['label']}"],
    }) for i, x in enumerate(lines)) + "\n")
    return path


def _printed_created(stdout: str) -> dict[str, int]:
    line = " ".join(stdout.split())
    created = re.search(r"created (.+?)(?:;| \()", line)
    assert created, stdout
    return {kind: int(n) for n, kind in re.findall(r"(\d+) (\w+)", created.group(1))}


@pytest.mark.parametrize("memory", ["state", "associative", "experience", "insight"])
def test_printed_ingest_counts_equal_a_count_query(memory, cli_env, locomo_sample, namespaces,
                                                   runner, tmp_path) -> None:
    from typer.testing import CliRunner

    from graphmem.cli.main import app

    ns = namespaces()
    source = {"state": [str(locomo_sample)], "associative": [str(locomo_sample)],
              "experience": [str(datasets.resolve("scienceworld_train")), "--limit", "3"],
              "insight": [str(_feedback_file(tmp_path))]}[memory]
    # in-process (the same command line as a subprocess, without a second model import)
    proc = CliRunner().invoke(app, [memory, "ingest", *source, "-n", ns])
    assert proc.exit_code == 0, proc.output[-3000:]
    printed = _printed_created(proc.stdout)
    stored = _stored(runner, ns)
    labels = set(memory_spec(memory).labels)
    assert {k: v for k, v in printed.items() if k in labels} == \
        {k: v for k, v in stored.items() if k in labels}
    again = CliRunner().invoke(app, [memory, "ingest", *source, "-n", ns, "--json"])
    assert again.exit_code == 0, again.output[-3000:]
    assert not {k: v for k, v in json.loads(again.stdout)["created"].items() if k in labels}


def test_recall_on_an_empty_namespace_answers_before_loading_the_model(
        namespace, cli_env, monkeypatch) -> None:
    from typer.testing import CliRunner

    from graphmem.cli.main import app
    from graphmem.embeddings import SentenceTransformerEmbedder

    def no_load(self):
        raise AssertionError("the embedding model was loaded for an empty namespace")

    monkeypatch.setattr(SentenceTransformerEmbedder, "_load", no_load)
    for memory in ("state", "associative", "insight", "experience"):
        out = CliRunner().invoke(app, [memory, "recall", "what did Caroline research?", "-n",
                                       namespace])
        assert out.exit_code == 0, out.output
        assert f"namespace '{namespace}' holds no {memory} memory" in " ".join(out.output.split())

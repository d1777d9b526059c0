"""``graphmem delete-namespace -n NS``: shows what the namespace holds (nodes per memory, its
audit records and retention policy), deletes exactly that namespace after a yes (or ``--yes``
outside a terminal), never touches another namespace; ``--dry-run`` and a namespace that holds
nothing delete nothing; without ``--yes`` outside a terminal it refuses with exit code 2."""

from __future__ import annotations

import json
import re
import signal
import sys

import pexpect
import pytest
from typer.testing import CliRunner

from graphmem.cli.main import app
from graphmem.facade import GraphMemory
from reliability import counts, other_namespace, snapshot, tq  # noqa: F401

MESSAGES = [("user", "My sister Ada moved to Lisbon in March."),
            ("assistant", "Lisbon is lovely in spring. Is she settling in?"),
            ("user", "Yes, she found a flat near the river and started a pottery class.")]


def _seed(runner, embedder, namespace: str) -> dict[str, dict[str, int]]:
    """``namespace`` holding one conversation and a retention policy; its nodes per memory."""
    mem = GraphMemory(runner, embedder, namespace=namespace)
    mem.add([{"id": f"m{i}", "role": role, "content": text}
             for i, (role, text) in enumerate(MESSAGES)], conversation_id="chat")
    mem.set_retention(keep_last=100)
    return {m: {label: n for label, n in per.items() if n} for m, per in mem.counts().items()
            if any(per.values())}


@pytest.fixture
def seeded(runner, embedder, namespace, other_namespace, tq) -> dict:  # noqa: F811
    """The namespace to delete and another one, both holding the same conversation; the
    first's nodes per memory and the second's snapshot."""
    held = _seed(runner, embedder, namespace)
    _seed(runner, embedder, other_namespace)
    return {"nodes": held, "total": sum(n for per in held.values() for n in per.values()) + 1,
            "other": snapshot(tq, other_namespace)}


def _cli(*args: str):
    return CliRunner().invoke(app, ["delete-namespace", *args])


def test_dry_run_shows_the_nodes_per_memory_and_deletes_nothing(
        namespace, other_namespace, seeded, tq, cli_env) -> None:  # noqa: F811
    before = snapshot(tq, namespace)
    report = _cli("-n", namespace, "--dry-run", "--json")
    assert report.exit_code == 0, report.output
    data = json.loads(report.stdout)
    assert data["namespace"] == namespace and data["dry_run"] is True
    assert data["nodes"] == seeded["nodes"] and data["nodes"]["state"]["Event"] == 3
    assert data["bookkeeping"] == {"RetentionPolicy": 1}
    assert data["total"] == seeded["total"] == before["_counts"]["nodes"]
    assert data["deleted"] == 0

    text = _cli("-n", namespace, "--dry-run")
    assert text.exit_code == 0, text.output
    out = " ".join(text.stdout.split())
    assert f"namespace '{namespace}' holds {seeded['total']} nodes" in out
    assert "state: " in out and "Event 3" in out and "RetentionPolicy 1" in out
    assert "dry run: nothing deleted" in out
    assert snapshot(tq, namespace) == before
    assert snapshot(tq, other_namespace) == seeded["other"]


def test_outside_a_terminal_it_needs_yes(namespace, other_namespace, seeded, tq,
                                         cli_env) -> None:  # noqa: F811
    before = snapshot(tq, namespace)
    refused = _cli("-n", namespace)
    assert refused.exit_code == 2, refused.output
    assert "--yes" in refused.stderr and "nothing deleted" in refused.stderr
    refused_json = _cli("-n", namespace, "--json")
    assert refused_json.exit_code == 2 and refused_json.stdout.strip() == "", refused_json.output
    no_namespace = _cli("--yes")
    assert no_namespace.exit_code == 2 and "--namespace" in no_namespace.output
    assert snapshot(tq, namespace) == before
    assert snapshot(tq, other_namespace) == seeded["other"]


def test_yes_deletes_exactly_that_namespace(namespace, other_namespace, seeded, tq, runner,
                                            embedder, cli_env) -> None:  # noqa: F811
    done = _cli("-n", namespace, "--yes", "--json", "--batch-size", "2")
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["dry_run"] is False and report["deleted"] == seeded["total"]
    assert counts(tq, namespace) == {"nodes": 0, "relationships": 0}
    assert GraphMemory(runner, embedder, namespace=namespace).retention() is None
    assert snapshot(tq, other_namespace) == seeded["other"]

    again = _cli("-n", namespace, "--yes")
    assert again.exit_code == 0, again.output
    assert f"namespace '{namespace}' holds nothing" in " ".join(again.stdout.split())


def test_a_namespace_holding_nothing_is_left_alone(namespace, other_namespace, seeded, tq,
                                                   cli_env) -> None:  # noqa: F811
    empty = f"{namespace}-empty"
    text = _cli("-n", empty)  # no --yes needed: nothing would be deleted
    assert text.exit_code == 0, text.output
    assert f"namespace '{empty}' holds nothing: nothing to delete" in " ".join(text.stdout.split())
    data = json.loads(_cli("-n", empty, "--json").stdout)
    assert data["total"] == 0 and data["deleted"] == 0 and data["nodes"] == {}
    assert snapshot(tq, namespace)["_counts"]["nodes"] == seeded["total"]
    assert snapshot(tq, other_namespace) == seeded["other"]


@pytest.fixture
def env(cli_subprocess_env: dict[str, str]) -> dict[str, str]:
    """The environment of a CLI process against the test server (conftest's)."""
    return cli_subprocess_env


def _answer(namespace: str, total: int, env: dict, answer: str) -> tuple[int, str]:
    """Run the command in a real terminal and answer its question; (exit status, screen)."""
    child = pexpect.spawn(sys.executable, ["-m", "graphmem.cli.main", "delete-namespace", "-n",
                                           namespace], env=env, encoding="utf-8", timeout=300,
                          dimensions=(40, 160),
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    child.expect(rf"Delete all {total} nodes of namespace '{namespace}'\? "
                 r"This cannot be undone \[y/N\]")
    child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, " ".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "",
                                             child.before).split())


def test_in_a_terminal_it_asks_and_no_deletes_nothing(namespace, other_namespace, seeded, tq,
                                                      env) -> None:  # noqa: F811
    before = snapshot(tq, namespace)
    status, screen = _answer(namespace, seeded["total"], env, "n")
    assert status == 1 and "Aborted" in screen, screen[-2000:]
    assert snapshot(tq, namespace) == before

    status, screen = _answer(namespace, seeded["total"], env, "y")
    assert status == 0, screen[-2000:]
    assert f"deleted {seeded['total']} nodes of namespace '{namespace}'" in screen
    assert counts(tq, namespace)["nodes"] == 0
    assert snapshot(tq, other_namespace) == seeded["other"]

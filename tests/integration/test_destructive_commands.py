"""No command deletes data it was not asked to: ``graphmem demo`` keeps what its namespace holds
unless ``--reset`` is given, and then asks first in a terminal (no keeps everything); the LLM demo
checks for its extra before it connects or writes. ``graphmem memories`` names the namespace it
counts and shows nodes and relationships apart."""

from __future__ import annotations

import json
import re
import signal
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from graphmem.facade import GraphMemory

KEEP = "keep-me"  # the conversation a user stored before running the demo


@pytest.fixture(scope="module")
def small_locomo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled LoCoMo conversation cut to its first 12 turns: a short demo."""
    from reliability import locomo_prefix_file

    return locomo_prefix_file(tmp_path_factory.mktemp("locomo"), 12, "locomo-12.json")


@pytest.fixture
def env(cli_subprocess_env: dict[str, str]) -> dict[str, str]:
    """The environment of a CLI run against the test server (conftest's)."""
    return cli_subprocess_env


@pytest.fixture
def seeded(runner, embedder, namespace) -> dict[str, dict[str, int]]:
    """``namespace`` holding a user's own conversation; returns its node and relationship
    counts per memory."""
    mem = GraphMemory(runner, embedder, namespace=namespace)
    mem.add([{"id": f"k{i}", "role": role, "content": text} for i, (role, text) in enumerate([
        ("user", "My sister Ada moved to Lisbon in March."),
        ("assistant", "Lisbon is lovely in spring. Is she settling in?"),
        ("user", "Yes, she found a flat near the river and started a pottery class.")])],
        conversation_id=KEEP)
    return {"nodes": mem.counts(), "relationships": mem.relationship_counts()}


def _kept(runner, embedder, namespace: str) -> list[str]:
    """The ids of the user's messages still stored (as state events and associative
    episodes)."""
    return [i for i in ("k0", "k1", "k2")
            if all(runner.read(f"{memory}/count_stored_turns", namespace=namespace,
                               conversation=KEEP, source_ids=[i])[0]["stored"] == 1
                   for memory in ("state", "associative"))]


def _snapshot(runner, embedder, namespace: str) -> dict[str, dict[str, int]]:
    mem = GraphMemory(runner, embedder, namespace=namespace)
    return {"nodes": mem.counts(), "relationships": mem.relationship_counts()}


def test_the_llm_demo_checks_its_extra_before_it_connects(namespace, runner, embedder, seeded,
                                                          monkeypatch) -> None:
    """``--llm local --reset`` without llama_cpp: the configuration error (exit 3) comes before
    any connection — Neo4j here is a closed port, which would be exit 4 — so nothing is
    deleted or written."""
    from graphmem.cli.main import app
    from graphmem.neo4j_local import free_port

    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as if the extra were not installed
    monkeypatch.setenv("NEO4J_URI", f"bolt://127.0.0.1:{free_port()}")
    result = CliRunner().invoke(app, ["demo", "--llm", "local", "--namespace", namespace,
                                      "--reset", "--yes"])
    assert result.exit_code == 3, result.output
    assert "local-llm" in result.stderr and "cannot reach Neo4j" not in result.stderr
    assert _snapshot(runner, embedder, namespace) == seeded
    assert _kept(runner, embedder, namespace) == ["k0", "k1", "k2"]


def test_the_demo_keeps_what_the_namespace_holds_unless_reset(
        namespace, runner, embedder, seeded, small_locomo, cli_env) -> None:
    from graphmem.cli.main import app

    args = ["demo", "--quick", "--locomo", str(small_locomo), "--namespace", namespace]
    kept = CliRunner().invoke(app, args)
    assert kept.exit_code == 0, kept.output[-3000:]
    assert f"namespace '{namespace}' holds" in " ".join(kept.stdout.split())
    assert _kept(runner, embedder, namespace) == ["k0", "k1", "k2"]
    after = _snapshot(runner, embedder, namespace)
    assert after["nodes"]["experience"]["Task"] > 0  # the demo wrote beside the user's data
    assert all(after["nodes"][m][label] >= n for m, per in seeded["nodes"].items()
               for label, n in per.items())

    # --reset outside a terminal: the flag is the answer, no prompt
    reset = CliRunner().invoke(app, [*args, "--reset"])
    assert reset.exit_code == 0, reset.output[-3000:]
    removed = re.search(rf"removed (\d+) node\(s\) of namespace '{namespace}'",
                        " ".join(reset.stdout.split()))
    assert removed and int(removed.group(1)) == sum(
        n for per in after["nodes"].values() for n in per.values())
    assert _kept(runner, embedder, namespace) == []


def _spawn(args: list[str], env: dict) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "graphmem.cli.main", *args], env=env,
                         encoding="utf-8", timeout=300, dimensions=(40, 160),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "")


def _answer_reset_prompt(namespace: str, seeded: dict, small_locomo: Path, env: dict,
                         answer: str) -> tuple[int, str]:
    """Run ``demo --reset`` in a real terminal, answer its prompt; (exit status, screen)."""
    held = sum(n for per in seeded["nodes"].values() for n in per.values())
    child = _spawn(["demo", "--quick", "--locomo", str(small_locomo), "--namespace", namespace,
                    "--reset"], env)
    child.expect(rf"Delete all {held} nodes of namespace '{namespace}'\? \[y/N\]")
    child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, _plain(child.before)


def test_reset_in_a_terminal_asks_and_no_deletes_nothing(namespace, runner, embedder, seeded,
                                                         small_locomo, env) -> None:
    status, screen = _answer_reset_prompt(namespace, seeded, small_locomo, env, "n")
    assert status == 1 and "Aborted" in screen, screen[-2000:]
    assert _snapshot(runner, embedder, namespace) == seeded
    assert _kept(runner, embedder, namespace) == ["k0", "k1", "k2"]


def test_reset_in_a_terminal_deletes_after_yes(namespace, runner, embedder, seeded,
                                               small_locomo, env) -> None:
    held = sum(n for per in seeded["nodes"].values() for n in per.values())
    status, screen = _answer_reset_prompt(namespace, seeded, small_locomo, env, "y")
    screen = " ".join(screen.split())
    assert status == 0, screen[-3000:]
    assert f"removed {held} node(s) of namespace '{namespace}'" in screen
    assert _kept(runner, embedder, namespace) == []
    nodes = _snapshot(runner, embedder, namespace)["nodes"]
    assert nodes["state"]["Event"] == 12 and nodes["associative"]["Episode"] == 12


def test_memories_names_the_namespace_and_keeps_nodes_and_relationships_apart(
        namespace, seeded, cli_env, monkeypatch) -> None:
    from graphmem.cli.main import app

    listing = CliRunner().invoke(app, ["memories", "-n", namespace, "--json"])
    assert listing.exit_code == 0, listing.output
    rows = {row["memory"]: row for row in json.loads(listing.stdout)}
    for name, row in rows.items():
        assert row["namespace"] == namespace
        assert row["counts"] == seeded["nodes"][name]
        assert row["relationships"] == seeded["relationships"][name]
        assert set(row["counts"]) == set(row["labels"])  # nodes only, by label
        assert not set(row["relationships"]) & set(row["labels"])
    assert rows["state"]["counts"]["Event"] == 3
    assert rows["associative"]["relationships"]["NEXT_EPISODE"] == 2

    # the CLI's console read COLUMNS when graphmem.cli was first imported in this process
    # (whichever test did it): set its width for this test only
    from graphmem.cli.common import console

    monkeypatch.setattr(console, "_width", 400)
    table = CliRunner().invoke(app, ["memories", "-n", namespace])
    assert table.exit_code == 0, table.output
    text = table.stdout
    assert f"counts in namespace '{namespace}'" in text
    header = next(line for line in text.splitlines() if "summary" in line)
    assert header.index("nodes") < header.index("relationships")
    assoc = next(line for line in text.splitlines() if line.strip("│ ").startswith("associative"))
    cells = [c.strip() for c in assoc.split("│")]
    nodes_cell, edges_cell = cells[-3], cells[-2]
    assert "Episode 3" in nodes_cell and "NEXT_EPISODE" not in nodes_cell
    assert "NEXT_EPISODE 2" in edges_cell and "Episode 3" not in edges_cell


def test_forget_counts_first_and_needs_yes_outside_a_terminal(namespace, runner, embedder,
                                                              seeded, cli_env) -> None:
    from graphmem.cli.main import app

    base = ["forget", "-n", namespace, "--conversation", KEEP, "--speaker", "user"]
    preview = CliRunner().invoke(app, [*base, "--dry-run", "--json"])
    assert preview.exit_code == 0, preview.output
    assert json.loads(preview.stdout)["messages"] == 2
    refused = CliRunner().invoke(app, base)
    assert refused.exit_code == 1 and "add --yes" in " ".join(refused.stdout.split())
    assert _snapshot(runner, embedder, namespace) == seeded
    done = CliRunner().invoke(app, [*base, "--yes", "--json", "--actor", "ops"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["messages"] == 2 and report["rebuilt"] == {"state": 1, "associative": 1}
    assert report["nodes"]["Event"] == 2 and report["audit_id"]
    assert _kept(runner, embedder, namespace) == ["k1"]
    none = CliRunner().invoke(app, ["forget", "-n", namespace])
    assert none.exit_code != 0 and "at least one selector" in " ".join(none.output.split())
    unmatched = CliRunner().invoke(app, ["forget", "-n", namespace, "--speaker", "nobody",
                                         "--json", "--actor", "ops"])
    assert unmatched.exit_code == 0, unmatched.output
    missed = json.loads(unmatched.stdout)
    assert missed["messages"] == 0 and missed["dry_run"] is False and missed["audit_id"]
    assert GraphMemory(runner, embedder, namespace).audit_records()[0]["id"] == \
        missed["audit_id"]
    assert _kept(runner, embedder, namespace) == ["k1"]

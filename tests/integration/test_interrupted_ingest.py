"""Ctrl-C during an ingest reports what is committed — the database's count, asked after the
interruption — not the progress bar's count, which lags behind the commits. The interruption is
raised from the progress callback after the first conversation's transaction committed and
before the callback counted it: the bar says 0, the database holds a whole conversation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem.conversations import read_conversations
from graphmem.progress import Tracker
from reliability import locomo_prefix_file

TURNS = 14  # per conversation


@pytest.fixture(scope="module")
def two_conversations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two conversations of the bundled LoCoMo sample, each cut to its first ``TURNS``
    turns (whole sessions first), as one LoCoMo file."""
    path = locomo_prefix_file(tmp_path_factory.mktemp("locomo"), TURNS,
                              "two-conversations.json", conversations=2)
    assert [len(c.turns) for c in read_conversations(path)] == [TURNS, TURNS]
    return path


def _interrupt_on_first_progress(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the progress callback raise Ctrl-C on its first call, before it counts anything;
    returns the list of the sizes it was called with."""
    seen: list[int] = []

    def interrupt(self: Tracker, n: int = 1) -> None:
        seen.append(n)
        raise KeyboardInterrupt

    monkeypatch.setattr(Tracker, "__call__", interrupt)
    return seen


@pytest.mark.parametrize(("memory", "label"), [("state", "Event"), ("associative", "Episode")])
def test_ctrl_c_reports_the_databases_count(memory, label, two_conversations, namespace,
                                            runner, cli_env, monkeypatch) -> None:
    from graphmem.cli.main import app

    real_call = Tracker.__call__
    seen = _interrupt_on_first_progress(monkeypatch)
    args = [memory, "ingest", str(two_conversations), "-n", namespace]
    monkeypatch.setattr("sys.argv", ["graphmem", *args])  # what the resume line repeats
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 130, result.output
    assert seen == [TURNS]  # called once, after the first conversation committed
    stored = {r["label"]: r["nodes"]
              for r in runner.read("core/count_namespace_nodes", namespace=namespace)}
    assert stored[label] == TURNS  # the first conversation, whole; the second not begun
    text = " ".join(result.stderr.split())
    said = re.search(rf"interrupted — {memory} ingest: (\d+) of {2 * TURNS} turns committed — "
                     r"resume with: graphmem (.+?) \(what is stored is skipped\)", text)
    assert said, text
    assert int(said.group(1)) == stored[label]  # not the progress count (0)
    assert said.group(2).split() == args

    monkeypatch.setattr(Tracker, "__call__", real_call)  # the resume counts as usual
    resumed = CliRunner().invoke(app, [*args, "--json"])
    assert resumed.exit_code == 0, resumed.output
    report = json.loads(resumed.stdout)
    assert report["skipped"] == {"turn": TURNS} and report["created"][label] == TURNS
    stored = {r["label"]: r["nodes"]
              for r in runner.read("core/count_namespace_nodes", namespace=namespace)}
    assert stored[label] == 2 * TURNS


def test_an_interruption_before_any_commit_reports_zero(two_conversations, namespace, runner,
                                                        cli_env, monkeypatch) -> None:
    """Ctrl-C while the first conversation is still being prepared (raised from the embedder,
    inside the ingest, before its transaction): nothing is stored and the message says 0."""
    from graphmem.cli.main import app
    from graphmem.embeddings import ValidatingEmbedder

    def interrupt(self, texts):  # noqa: ANN001, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr(ValidatingEmbedder, "embed_documents", interrupt)
    result = CliRunner().invoke(app, ["state", "ingest", str(two_conversations), "-n", namespace])
    assert result.exit_code == 130, result.output
    assert runner.read("core/count_namespace_nodes", namespace=namespace) == []
    text = " ".join(result.stderr.split())
    assert f"interrupted — state ingest: 0 of {2 * TURNS} turns committed" in text, text

"""One error style and exit code per class in every command, the progress convention, and the
readable table helpers (no database needed)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from typer.testing import CliRunner

from graphmem import errors as ge
from graphmem import progress
from graphmem.cli import failures
from graphmem.cli import main as cli_main
from graphmem.cli.display import short_id, shorten

FILE_COMMANDS = [["state", "ingest"], ["associative", "ingest"], ["experience", "ingest"],
                 ["insight", "ingest"], ["insight", "feedback"], ["experience", "explore"]]


@pytest.mark.parametrize("command", FILE_COMMANDS, ids=" ".join)
def test_a_missing_input_file_is_the_same_error_everywhere(command, tmp_path) -> None:
    missing = tmp_path / "missing.json"
    result = CliRunner().invoke(cli_main.app, [*command, str(missing)])
    assert result.exit_code == 2, result.output
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: input not found — ")
    assert str(missing) in " ".join(result.output.split())


def test_a_mistyped_uri_scheme_names_neo4j_uri(monkeypatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "blot://127.0.0.1:7687")
    result = CliRunner().invoke(cli_main.app, ["namespaces"])
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert text.startswith("error: bad NEO4J_URI — ") and "Traceback" not in text


@pytest.mark.parametrize("exc,code", [
    (ge.InvalidInputError("x"), 2), (ge.InputFormatError("x"), 2), (ge.EmptyTextError("x"), 2),
    (ge.ConfigurationError("x"), 3), (ge.DataNotFoundError("x"), 3),
    (ge.ServiceUnavailableError("x"), 4), (ge.AuthenticationError("x"), 4),
    (ge.LauncherError("x"), 4), (ge.QueryError("x"), 1), (ge.MigrationError("x"), 1),
    (RuntimeError("x"), 1),
])
def test_exit_code_per_error_class(exc, code) -> None:
    assert failures.exit_code(exc) == code
    what, why, todo = failures.describe(exc)
    assert what and why and todo and "\n" not in why


def test_an_unreachable_server_names_the_variable(monkeypatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    _, _, todo = failures.describe(ge.ServiceUnavailableError("refused"))
    assert "NEO4J_URI" in todo and "bolt://127.0.0.1:1" in todo


def _piped() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=200), out


def test_piped_progress_writes_a_line_at_start_and_every_tenth() -> None:
    console, out = _piped()
    with progress.track("state ingest", unit="turn", total=40, console=console) as step:
        for _ in range(40):
            step(1)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("state ingest: 0 of 40 turns (0%)")
    assert lines[-1].startswith("state ingest: 40 of 40 turns (100%)")
    assert 5 <= len(lines) <= 12


def test_quiet_progress_writes_nothing() -> None:
    console, out = _piped()
    with progress.track("x", unit="turn", total=3, console=console, disable=True) as step:
        step(3)
    assert out.getvalue() == "" and step.done == 3


def test_ctrl_c_summary_names_the_committed_count_and_the_command(monkeypatch, capsys) -> None:
    console, _ = _piped()
    monkeypatch.setattr("sys.argv", ["graphmem", "state", "ingest", "a file.json", "-n", "x"])
    progress.interrupted.clear()
    with pytest.raises(KeyboardInterrupt):
        with progress.track("state ingest", unit="turn", total=40, console=console) as step:
            step(25)
            raise KeyboardInterrupt
    assert failures.report_interrupt() == 130
    text = " ".join(capsys.readouterr().err.split())
    # the progress count is only a lower bound of what committed
    assert "interrupted — state ingest: at least 25 of 40 turns committed — resume with: " \
           "graphmem state ingest 'a file.json' -n x" in text
    progress.interrupted.clear()
    # a step that can ask the database reports its answer instead
    with pytest.raises(KeyboardInterrupt):
        with progress.track("state ingest", unit="turn", total=40, console=console) as step:
            with step.counting(lambda: 40):
                step(25)
                raise KeyboardInterrupt
    assert step.committed == 40 and step.done == 25
    assert failures.report_interrupt() == 130
    text = " ".join(capsys.readouterr().err.split())
    assert "interrupted — state ingest: 40 of 40 turns committed — resume with: " in text
    progress.interrupted.clear()


def test_ids_and_text_are_shown_the_same_way() -> None:
    assert short_id("7eff3779-d706-5d31-af09-d4a136cd0000") == "7eff3779"
    assert short_id("D1:3") == "D1:3" and short_id("9_412") == "9_412"
    cut = shorten("word " * 100, 30)
    assert cut.endswith(" …") and len(cut) <= 30 and "wor …" not in cut

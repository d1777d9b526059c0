"""``graphmem shell`` without a database: line splitting, the per-line exit codes and markers,
comments and blank lines, ``--exit-on-error``, refused commands, and the warm facade that
``open_memory`` hands out per namespace."""

from __future__ import annotations

import io
from typing import Any

import pytest

from graphmem.cli import common, failures
from graphmem.cli.shell import GraphmemShell, command_word, exit_status, run_args, split_line
from graphmem.errors import InvalidInputError


class FakeRoot:
    """A click-like application: ``main`` exits with the code named by the line's first word
    (``ok`` 0, ``usage`` 2, ``boom`` raises), recording the lines."""

    commands = {"state": object(), "namespaces": object()}

    def __init__(self) -> None:
        self.lines: list[list[str]] = []

    def main(self, args: list[str], prog_name: str, standalone_mode: bool) -> None:
        assert prog_name == "graphmem" and standalone_mode
        self.lines.append(args)
        assert failures.shell_line["args"] == args  # what an interrupt would print to resume
        word = command_word(args)
        if word == "boom":
            raise RuntimeError("unexpected")
        raise SystemExit({"ok": 0, "usage": 2, "none": None}[word])


def _shell(lines: str, **options: Any) -> tuple[GraphmemShell, FakeRoot, list[str]]:
    root, out = FakeRoot(), io.StringIO()
    shell = GraphmemShell(root, prompt="", marker="@@", stdin=io.StringIO(lines), stdout=out,
                          interactive=False, **options)
    shell.loop()
    return shell, root, out.getvalue().splitlines()


def test_split_line_follows_posix_rules_and_names_a_bad_line() -> None:
    assert split_line('state recall "When did she move?" -k 3  # why') == [
        "state", "recall", "When did she move?", "-k", "3"]
    assert split_line("   ") == [] and split_line("# only a comment") == []
    with pytest.raises(InvalidInputError, match=r"cannot split 'state recall \"x'"):
        split_line('state recall "x')


def test_command_word_and_exit_status() -> None:
    assert command_word(["-v", "--debug", "state", "recall"]) == "state"
    assert command_word(["--help"]) is None
    assert [exit_status(c) for c in (None, 0, 2, 130, "message")] == [0, 0, 2, 130, 1]


def test_every_line_gets_its_exit_code_and_a_marker(capsys) -> None:
    shell, root, out = _shell("ok a\n\n# note\nusage b\nnone\nboom\nstate 'open\nok c\n")
    assert out == ["@@ 0", "@@ 0", "@@ 0", "@@ 2", "@@ 0", "@@ 1", "@@ 2", "@@ 0"]
    assert root.lines == [["ok", "a"], ["usage", "b"], ["none"], ["boom"], ["ok", "c"]]
    assert shell.status == 0  # the last command's code, like sh
    err = capsys.readouterr().err
    assert "error: unexpected error — RuntimeError: unexpected" in err
    assert "cannot split" in err and "Traceback" not in err
    assert "args" not in failures.shell_line


def test_exit_on_error_and_exit_stop_reading() -> None:
    shell, root, out = _shell("ok\nusage\nok\n", exit_on_error=True)
    assert root.lines == [["ok"], ["usage"]] and out == ["@@ 0", "@@ 2"] and shell.status == 2
    shell, root, out = _shell("usage\nexit\nok\n")
    assert root.lines == [["usage"]] and out == ["@@ 2"] and shell.status == 2


@pytest.mark.parametrize("word", ["shell", "mcp"])
def test_commands_that_take_over_the_process_are_refused(word, capsys) -> None:
    root = FakeRoot()
    assert run_args(root, ["-v", word, "-n", "x"]) == 2
    assert root.lines == []
    assert f"'{word}' cannot run inside graphmem shell" in capsys.readouterr().err


def test_prefix_and_completion() -> None:
    shell, root, _ = _shell("ok\n", prefix=("--debug",))
    assert root.lines == [["--debug", "ok"]]
    assert shell.completenames("st") == ["state"] and shell.completenames("ex") == ["exit"]


class FakeFacade:
    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.made: list[str] = []

    def scoped(self, namespace: str) -> FakeFacade:
        if not namespace.strip():
            raise InvalidInputError(f"bad namespace {namespace!r}")
        self.made.append(namespace)
        return FakeFacade(namespace)


def test_open_memory_hands_out_one_scoped_facade_per_namespace_while_warm() -> None:
    warm = FakeFacade("alice")
    with common.keep_warm(warm):  # type: ignore[arg-type]
        assert common.warm_memory() is warm
        first = common.open_memory(None)
        assert first.namespace == "alice" and common.open_memory("alice") is first
        other = common.open_memory("bob")
        assert other.namespace == "bob" and common.open_memory("bob") is other
        assert warm.made == ["alice", "bob"]
        with pytest.raises(InvalidInputError, match="bad namespace"):
            common.open_memory(" ")
        with pytest.raises(InvalidInputError, match="kept warm already"):
            with common.keep_warm(warm):  # type: ignore[arg-type]
                pass
    assert common.warm_memory() is None

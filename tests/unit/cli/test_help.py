"""Every command's help reads well: each option and argument has a description, no default
shows an absolute path of this machine, no reStructuredText or rich markup leaks into the text,
and no option asks for a ``BOOLEAN`` value instead of being a flag."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from graphmem.cli import main as cli_main

MARKUP = re.compile(r"``|\[/?(bold|red|dim|green|yellow|italic|b|i)\]|:class:|:func:")


def _commands(group, path: tuple[str, ...] = ()):
    yield path, group
    if hasattr(group, "commands"):  # a group (typer may ship its own click)
        for name, sub in group.commands.items():
            yield from _commands(sub, path + (name,))


COMMANDS = list(_commands(typer.main.get_command(cli_main.app)))


@pytest.mark.parametrize("path,command", COMMANDS, ids=[" ".join(p) or "graphmem" for p, _ in COMMANDS])
def test_every_parameter_is_described(path, command) -> None:
    for param in command.params:
        if param.name == "help":
            continue
        assert getattr(param, "help", None), f"graphmem {' '.join(path)}: {param.name} has no help"
        if param.param_type_name == "option":
            assert param.is_flag or "bool" not in str(getattr(param, "type_descriptor", "")).lower(), \
                f"graphmem {' '.join(path)}: {param.name} takes a BOOLEAN value; make it a flag"


@pytest.mark.parametrize("path,command", COMMANDS, ids=[" ".join(p) or "graphmem" for p, _ in COMMANDS])
def test_help_text_has_no_machine_paths_or_markup(path, command) -> None:
    result = CliRunner().invoke(cli_main.app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert not MARKUP.search(text), f"markup in graphmem {' '.join(path)} --help:\n{text}"
    for root in {str(Path.home()), str(Path(__file__).resolve().parents[3]), "/work/", "/tmp/"}:
        assert root not in text, f"absolute path {root} in graphmem {' '.join(path)} --help"
    for param in command.params:
        default = getattr(param, "default", None)
        if isinstance(default, Path | str) and not callable(default):
            assert not Path(str(default)).is_absolute(), \
                f"graphmem {' '.join(path)}: {param.name} defaults to an absolute path"


@pytest.mark.parametrize("path,command", COMMANDS, ids=[" ".join(p) or "graphmem" for p, _ in COMMANDS])
def test_flags_read_as_flags_in_the_rendered_help(path, command) -> None:
    """The help as a terminal shows it: a flag has no value placeholder (``--json`` alone, never
    ``--json <bool>`` or ``--json BOOLEAN``), and no backtick of the docstrings' markup leaks."""
    result = CliRunner().invoke(cli_main.app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    flags = [opt for p in command.params if getattr(p, "is_flag", False) for opt in p.opts]
    for line in result.output.splitlines():
        for flag in flags:
            if re.search(rf"(^|[\s│,]){re.escape(flag)}\s+(<bool>|BOOLEAN)", line):
                raise AssertionError(f"graphmem {' '.join(path)} --help shows {flag} as taking "
                                     f"a value:\n{line}")
    assert "`" not in result.output, f"backticks in graphmem {' '.join(path)} --help"

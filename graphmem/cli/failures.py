"""How the command line reports a failure or an interruption: one line on stderr,
``error: <what> — <why> — <what to do>``, and the same exit code per error class in every
command (the traceback only with ``graphmem --debug``).

Exit codes (:data:`EXIT_CODES`, documented in docs/cli.md):

====  ==========================================================================
0     success
1     any other error (a query the server rejected, a failed migration, ...)
2     usage: a bad option or argument, a missing input file, invalid input
3     configuration: a bad setting (NEO4J_URI, ...), a dataset that is missing
4     database: Neo4j cannot be reached or refused the credentials
130   interrupted (Ctrl-C); what was committed is kept and re-running resumes
====  ==========================================================================
"""

from __future__ import annotations

import logging
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from graphmem import errors as ge

if TYPE_CHECKING:
    from graphmem.progress import Tracker

logger = logging.getLogger(__name__)

err_console = Console(stderr=True)

#: ``graphmem --debug``: print tracebacks.
debug = {"on": False}

#: ``graphmem shell``: the arguments of the line that runs now, under ``"args"``.
shell_line: dict[str, list[str]] = {}

EXIT_OTHER, EXIT_USAGE, EXIT_CONFIG, EXIT_DATABASE, EXIT_INTERRUPTED = 1, 2, 3, 4, 130

#: Exit code per error class; the most specific class that matches wins (in this order).
EXIT_CODES: list[tuple[type[BaseException], int]] = [
    (ge.InvalidInputError, EXIT_USAGE),
    (ge.DataNotFoundError, EXIT_CONFIG),
    (ge.ConfigurationError, EXIT_CONFIG),
    (ge.ServiceUnavailableError, EXIT_DATABASE),
    (ge.AuthenticationError, EXIT_DATABASE),
    (ge.LauncherError, EXIT_DATABASE),
]

class MissingInputError(ge.InvalidInputError):
    """An input path given on the command line does not exist (exit 2, like a usage error)."""


_WHAT: list[tuple[type[BaseException], str, str]] = [
    (MissingInputError, "input not found", "check the path (relative paths start at the "
                                           "current directory)"),
    (ge.InputFormatError, "unreadable input", "fix the named file or line and run again"),
    (ge.EmptyTextError, "empty text", "pass non-empty text"),
    (ge.InvalidInputError, "invalid input", "correct the named value and run again"),
    (ge.DataNotFoundError, "data not found",
     "download it or point --data / GRAPHMEM_DATA at the folder that holds it"),
    (ge.ConfigurationError, "bad configuration", "correct the named setting"),
    (ge.ServiceUnavailableError, "cannot reach Neo4j",
     "start it (graphmem neo4j start) or set NEO4J_URI to a running server"),
    (ge.AuthenticationError, "Neo4j refused the credentials",
     "set NEO4J_USERNAME / NEO4J_PASSWORD"),
    (ge.LauncherError, "the local Neo4j did not start", "see graphmem -v for the launcher log"),
    (ge.MigrationLockedError, "migrations are locked", "wait for the other process, then retry"),
    (ge.MigrationError, "migration failed", "see the named migration"),
    (ge.ControllerError, "the LLM gave invalid output twice",
     "retry, or use the heuristic controller"),
    (ge.QueryError, "Neo4j rejected a query", "run with --debug and report it"),
    (ge.DatabaseError, "Neo4j error", "run with --debug for the driver's message"),
    (ge.GraphmemError, "failed", "run with --debug for the traceback"),
]


def exit_code(exc: BaseException) -> int:
    """The exit code of ``exc`` (see the module docstring)."""
    for cls, code in EXIT_CODES:
        if isinstance(exc, cls):
            return code
    if _is_driver_config_error(exc):
        return EXIT_CONFIG
    return EXIT_OTHER


def _is_driver_config_error(exc: BaseException) -> bool:
    """A neo4j driver ConfigurationError (e.g. a mistyped URI scheme), without importing neo4j."""
    return type(exc).__module__.startswith("neo4j") and "Configuration" in type(exc).__name__


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def describe(exc: BaseException) -> tuple[str, str, str]:
    """``(what, why, what to do)`` for ``exc``."""
    why = _one_line(str(exc)) or type(exc).__name__
    uri = os.environ.get("NEO4J_URI")
    if _is_driver_config_error(exc):
        return ("bad NEO4J_URI", f"{uri!r}: {why}" if uri else why,
                "set NEO4J_URI to bolt://host:7687 or neo4j://host:7687 (or unset it for the "
                "local Neo4j)")
    for cls, what, todo in _WHAT:
        if isinstance(exc, cls):
            if isinstance(exc, (ge.ServiceUnavailableError, ge.LauncherError)) and uri:
                todo = f"check NEO4J_URI (now {uri}) or unset it for the local Neo4j"
            return what, why, todo
    return "unexpected error", f"{type(exc).__name__}: {why}", "run with --debug and report it"


def report_error(exc: BaseException) -> int:
    """Print ``exc`` as one line on stderr (and the traceback under ``--debug``); its exit code."""
    what, why, todo = describe(exc)
    if debug["on"]:
        err_console.print_exception()
    err_console.print(f"[red]error:[/red] {escape(what)} — {escape(why)} — {escape(todo)}",
                      soft_wrap=True, highlight=False)
    logger.debug("exit %d after %s", exit_code(exc), type(exc).__name__)
    return exit_code(exc)


def missing_file(path: Path, what: str = "input file") -> MissingInputError:
    """The error every command raises for an input path that does not exist (exit 2)."""
    return MissingInputError(f"{what} {path} does not exist")


def require_path(path: Path, what: str = "input file") -> Path:
    """``path`` when it exists, else raise :func:`missing_file`'s error."""
    if not Path(path).exists():
        raise missing_file(path, what)
    return path


def resume_command() -> str:
    """The command line that was run, as ``graphmem ...`` (re-running it resumes): the
    process's arguments, or in ``graphmem shell`` the line that runs (:data:`shell_line`)."""
    args = shell_line.get("args")
    return "graphmem " + shlex.join(sys.argv[1:] if args is None else args)


def committed_line(t: Tracker) -> str:
    """What one interrupted step committed: the database's count when the step asked it
    (:meth:`graphmem.progress.Tracker.counting`), e.g. ``"state ingest: 788 of 788 turns
    committed"``; else the progress count as the lower bound it is (``"at least 12 of 40 ..."``)."""
    total = f" of {t.units(t.total)}" if t.total is not None else ""
    if t.committed is not None:
        counted = f"{t.committed}{total}" if total else t.units(t.committed)
        return f"{t.description}: {counted} committed"
    counted = f"{t.done}{total}" if total else t.units()
    return f"{t.description}: at least {counted} committed"


def report_interrupt() -> int:
    """Print what was committed before Ctrl-C (see :func:`committed_line`) and the command that
    resumes; returns 130."""
    from graphmem import progress

    steps = list(progress.current) + list(progress.interrupted)
    progress.interrupted.clear()  # reported once (graphmem shell runs many commands)
    if steps:
        done = "; ".join(committed_line(t) for t in steps)
    else:
        done = "no ingest was running"
    err_console.print(f"interrupted — {escape(done)} — resume with: "
                      f"{escape(resume_command())} (what is stored is skipped)",
                      soft_wrap=True, highlight=False)
    return EXIT_INTERRUPTED

"""``graphmem shell``: one process that keeps the Neo4j connection and the embedding model
loaded, and runs the one-shot commands line by line.

    $ graphmem shell -n alice
    graphmem:alice> state recall "When did Caroline move?"
    graphmem:alice> associative recall "What does Melanie paint?" --json
    graphmem:alice> namespaces
    graphmem:alice> exit

Each line is a ``graphmem`` command line without the ``graphmem`` word, split like a POSIX shell
(:mod:`shlex`; ``#`` starts a comment) and run by the same typer application, so its output, its
one-line errors and its exit code are those of the one-shot command. ``open_memory`` borrows the
facade the shell opened (:func:`graphmem.cli.common.keep_warm`): every line uses the same
connection, the same loaded model and, per namespace, the same memory instances, on the line's
``-n`` namespace or the shell's.

With stdin piped the shell reads one command per line and prints no prompt, so a script's output
is that of the commands one after another. ``--marker TEXT`` prints ``TEXT <exit code>`` on its
own line of stdout once the shell is ready and after every line, for a program that drives the
shell over a pipe (the output of a command is everything before its marker). The shell exits
with the exit code of the last command (like ``sh``); with ``--exit-on-error`` at the first
command that fails. ``exit``, ``quit`` or Ctrl-D leave; Ctrl-C stops the running command (exit
130 for that line) and returns to the prompt.
"""

from __future__ import annotations

import cmd
import logging
import shlex
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

import typer

from graphmem import progress
from graphmem.cli import failures
from graphmem.cli.common import cli_errors, err_console, keep_warm, open_memory
from graphmem.errors import InvalidInputError

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

app = typer.Typer(help="An interactive prompt (or one command per line of piped stdin) that "
                       "keeps the Neo4j connection and the embedding model loaded: the same "
                       "commands, output and exit codes as graphmem, without a model load per "
                       "command.")

#: Commands a line may not run: they take over the process (stdio) or would nest the shell.
REFUSED = frozenset({"shell", "mcp"})

#: Words the shell itself answers.
BUILTINS = ("exit", "quit", "help")


def split_line(line: str) -> list[str]:
    """The arguments of one shell line (POSIX rules, ``#`` comments dropped); ``[]`` for a blank
    or comment line.

    Raises:
        InvalidInputError: an unclosed quote or a trailing escape, naming the line.
    """
    try:
        return shlex.split(line, comments=True)
    except ValueError as exc:
        raise InvalidInputError(f"cannot split {line.strip()!r}: {exc}") from None


def command_word(args: list[str]) -> str | None:
    """The command of a line's arguments: the first one that is not a root option (``-v``,
    ``--debug``, which take no value), or None."""
    return next((a for a in args if not a.startswith("-")), None)


def exit_status(code: Any) -> int:
    """The exit code a ``SystemExit`` carries (None is 0, a message is 1, like Python's own)."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def run_args(root: Any, args: list[str]) -> int:
    """Run one command line through the ``graphmem`` application ``root`` as the one-shot
    command would (usage errors, one-line errors and exit codes included) and return its exit
    code; logging settings changed by the line (``-v``) are put back afterwards.

    Raises:
        nothing: every failure is printed and becomes the exit code.
    """
    word = command_word(args)
    if word in REFUSED:
        return failures.report_error(InvalidInputError(
            f"{word!r} cannot run inside graphmem shell: run graphmem {word} on its own"))
    saved = _logging_state()
    failures.shell_line["args"] = args
    progress.interrupted.clear()  # an interrupt reports this line's steps only
    try:
        root.main(args=args, prog_name="graphmem", standalone_mode=True)
        return 0
    except SystemExit as exc:
        return exit_status(exc.code)
    except KeyboardInterrupt:  # outside the command (parsing): nothing was running
        return failures.report_interrupt()
    except Exception as exc:  # noqa: BLE001 - a line never ends the shell with a traceback
        return failures.report_error(exc)
    finally:
        failures.shell_line.pop("args", None)
        _restore_logging(saved)
        sys.stdout.flush()
        sys.stderr.flush()


def _logging_state() -> tuple[int, list[logging.Handler], int]:
    root = logging.getLogger()
    return root.level, list(root.handlers), logging.getLogger("graphmem").level


def _restore_logging(state: tuple[int, list[logging.Handler], int]) -> None:
    level, handlers, own = state
    root = logging.getLogger()
    root.setLevel(level)
    root.handlers[:] = handlers
    logging.getLogger("graphmem").setLevel(own)


class GraphmemShell(cmd.Cmd):
    """The prompt loop (:class:`cmd.Cmd`): builtins ``exit``, ``quit``, ``help [COMMAND]``,
    Ctrl-D; every other line goes to :func:`run_args`.

    Args:
        root: the ``graphmem`` application as a click command (typer's).
        prompt: the prompt ("" when stdin is piped).
        marker: print ``MARKER <exit code>`` after every line (None: never).
        exit_on_error: stop at the first line whose exit code is not 0.
        prefix: arguments put before every line (the shell's own ``--debug``).
        stdin, stdout: the streams; a piped stdin is read line by line without readline.
    Attributes:
        status: the exit code of the last command (0 before any); ``line_status``: that of
            the last line (0 for a blank or comment line).
    """

    def __init__(self, root: Any, *, prompt: str, marker: str | None = None,
                 exit_on_error: bool = False, prefix: tuple[str, ...] = (),
                 stdin: TextIO | None = None, stdout: TextIO | None = None,
                 interactive: bool = True):
        super().__init__(stdin=stdin, stdout=stdout)
        self.use_rawinput = interactive
        self.root, self.prompt, self.marker = root, prompt, marker
        self.exit_on_error, self.prefix = exit_on_error, prefix
        self.status = self.line_status = 0
        self._stop = False

    # -- running lines -------------------------------------------------------------------------
    def run(self, line: str) -> None:
        """Run one line and record its exit code (a blank or comment line changes nothing)."""
        try:
            args = split_line(line)
        except InvalidInputError as exc:
            self._record(failures.report_error(exc))
            return
        if args:
            self._record(run_args(self.root, [*self.prefix, *args]))

    def _record(self, code: int) -> None:
        self.status = self.line_status = code
        if code and self.exit_on_error:
            self._stop = True

    def mark(self, code: int) -> None:
        """Print the marker line (when one is set) with ``code``."""
        if self.marker is not None:
            print(f"{self.marker} {code}", file=self.stdout, flush=True)

    def onecmd(self, line: str) -> bool:  # noqa: D102
        self.line_status = 0
        if super().onecmd(line) and not self._stop:
            return True  # exit, quit, Ctrl-D
        self.mark(self.line_status)
        return self._stop

    def default(self, line: str) -> bool:  # noqa: D102
        self.run(line)
        return False

    def emptyline(self) -> bool:  # noqa: D102 - a blank line repeats nothing
        return False

    # -- builtins ------------------------------------------------------------------------------
    def do_exit(self, arg: str) -> bool:
        """Leave the shell (exit code: the last command's)."""
        return True

    do_quit = do_exit

    def do_EOF(self, arg: str) -> bool:  # noqa: N802 - cmd's name for Ctrl-D / end of input
        """Ctrl-D: leave the shell."""
        if self.use_rawinput:
            print(file=self.stdout)
        return True

    def do_help(self, arg: str) -> bool:
        """help [COMMAND ...]: the help of graphmem or of one command."""
        self.run(f"{arg} --help")
        if not arg.strip():
            print("In this shell: a graphmem command per line (without 'graphmem'); "
                  "help COMMAND; exit, quit or Ctrl-D to leave.", file=self.stdout)
        return False

    # -- completion ----------------------------------------------------------------------------
    def completenames(self, text: str, *ignored: Any) -> list[str]:  # noqa: D102
        names = [*getattr(self.root, "commands", {}), *BUILTINS]
        return sorted(n for n in names if n.startswith(text))

    def completedefault(self, text: str, line: str, begidx: int, endidx: int) -> list[str]:  # noqa: D102
        node = self.root
        for word in line[:begidx].split():
            sub = getattr(node, "commands", {}).get(word)
            if sub is not None:
                node = sub
        names = list(getattr(node, "commands", {})) or [
            opt for p in node.params for opt in getattr(p, "opts", []) if opt.startswith("-")]
        return sorted(n for n in names if n.startswith(text))

    def loop(self) -> int:
        """Read and run lines until ``exit``, Ctrl-D or the end of stdin; returns
        :attr:`status`. Ctrl-C at the prompt clears the line."""
        while True:
            try:
                self.cmdloop()
                return self.status
            except KeyboardInterrupt:
                print("^C", file=self.stdout)
                if not self.use_rawinput:  # piped: an interrupt ends the script
                    return failures.EXIT_INTERRUPTED


def warm_up(mem: GraphMemory, torch_threads: int) -> float:
    """Load what the first command would: every registered memory (their modules) and the
    embedding model (one query embedded); returns the seconds taken.

    Args:
        torch_threads: torch intra-op threads (0: torch's default), set before the model loads.
    """
    from graphmem.cli.eval import set_torch_threads

    began = time.monotonic()
    set_torch_threads(torch_threads)
    mem.memories()
    mem.embedder.embed_query("warm up")
    return time.monotonic() - began


@app.command("shell")
def shell(
    ctx: typer.Context,
    namespace: str | None = typer.Option(
        None, "--namespace", "-n", help="namespace of lines without -n (default GRAPHMEM_NAMESPACE)"),
    preload: bool = typer.Option(True, "--preload/--no-preload",
                                 help="load the memories and the embedding model before the "
                                      "first prompt (else on the first command that needs them)"),
    torch_threads: int = typer.Option(1, "--torch-threads", min=0,
                                      help="torch intra-op threads for encoding, with --preload "
                                           "(0 = torch default)"),
    marker: str | None = typer.Option(None, "--marker",
                                      help="print 'MARKER <exit code>' on stdout when ready and "
                                           "after every line (for programs driving the shell)"),
    exit_on_error: bool = typer.Option(False, "--exit-on-error",
                                       help="stop at the first command that fails, with its code"),
) -> None:
    """An interactive prompt (or one command per line of piped stdin) that opens the Neo4j
    connection and the embedding model once: recalls answer without the model load of every
    one-shot command. Same commands, output and exit codes as graphmem itself."""
    root = ctx.find_root()
    interactive = sys.stdin.isatty()
    with cli_errors():
        mem = open_memory(namespace)
    with mem, keep_warm(mem):
        seconds = warm_up(mem, torch_threads) if preload else 0.0
        logger.info("shell ready on namespace %r in %.1f s", mem.namespace, seconds)
        if interactive:
            loaded = f", model loaded in {seconds:.1f} s" if preload else ""
            err_console.print(f"graphmem shell — namespace {mem.namespace!r}{loaded}. "
                              "A graphmem command per line; help, exit or Ctrl-D.",
                              highlight=False)
        loop = GraphmemShell(root.command, prompt=f"graphmem:{mem.namespace}> " if interactive
                             else "", marker=marker, exit_on_error=exit_on_error,
                             prefix=("--debug",) if failures.debug["on"] else (),
                             interactive=interactive)
        loop.mark(0)
        status = loop.loop()
    raise typer.Exit(status)

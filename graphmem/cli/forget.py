"""``graphmem forget -n NS [--message-id ID ...] [--conversation C] [--speaker S] [--actor A]
[--dry-run] [--yes] [--json]``: remove
messages and everything derived from them (see :mod:`graphmem.agent.forget`)."""

from __future__ import annotations

import json
import sys

import typer

from graphmem.cli.common import cli_errors, console, open_memory

app = typer.Typer(help="Forget messages and everything derived from them.")


@app.command("forget")
def forget(
    namespace: str | None = typer.Option(None, "--namespace", "-n",
                                         help="namespace (default GRAPHMEM_NAMESPACE)"),
    message_ids: list[str] = typer.Option(None, "--message-id", "-m",
                                          help="a message id to forget (repeat for more)"),
    conversation: str | None = typer.Option(None, "--conversation", "-c",
                                            help="forget this conversation's messages"),
    speaker: str | None = typer.Option(None, "--speaker", "-s",
                                       help="forget this speaker's messages"),
    actor: str | None = typer.Option(None, "--actor", help="who asks (kept in the audit record)"),
    dry_run: bool = typer.Option(False, "--dry-run", help="say what would go; change nothing"),
    yes: bool = typer.Option(False, "--yes", "-y", help="do not ask (needed outside a terminal)"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Forget the messages every given selector matches (at least one of --message-id,
    --conversation, --speaker) in every memory, rebuild what remains of their conversations,
    and write an audit record without content (also when nothing matched: the request is on
    record; not in a namespace that holds no memory at all). Asks first when something matches;
    --dry-run only counts and writes nothing.

    A message id is matched in every conversation of the namespace (ids such as "D3:4" recur
    across conversations): add --conversation to forget it in one."""
    selectors = {"message_ids": message_ids or None, "conversation_id": conversation,
                 "speaker": speaker}
    if not any(selectors.values()):
        console.print("forget needs at least one selector: --message-id ID (repeatable), "
                      "--conversation C or --speaker S; nothing changed", highlight=False)
        raise typer.Exit(2)
    with cli_errors(), open_memory(namespace) as mem:
        preview = mem.forget(**selectors, dry_run=True)
        if dry_run:
            _show(preview, as_json)
            return
        if preview.messages and not yes:
            if not sys.stdin.isatty():
                console.print(f"would forget {preview.messages} messages of "
                              f"{len(preview.conversations)} conversations in namespace "
                              f"{mem.namespace!r}: add --yes to do it (nothing changed)")
                raise typer.Exit(1)
            typer.confirm(f"Forget {preview.messages} messages of "
                          f"{len(preview.conversations)} conversations in namespace "
                          f"{mem.namespace!r}? This cannot be undone", default=False,
                          abort=True)
        with console.status(f"forgetting {preview.messages} messages"):
            report = mem.forget(**selectors, actor=actor)
    _show(report, as_json)


def _show(report, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report.model_dump(), indent=1))
        return
    verb = "would forget" if report.dry_run else "forgot"
    console.print(f"{verb} {report.messages} messages of {len(report.conversations)} "
                  f"conversations {report.per_memory}")
    if not report.dry_run:
        console.print(f"removed nodes {report.nodes}, relationships {report.relationships}; "
                      f"rebuilt {report.rebuilt}; {report.seconds:.1f} s; audit record "
                      f"{report.audit_id}")

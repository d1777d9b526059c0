"""``graphmem retain -n NS [--max-age-days N] [--keep-last N] [--dry-run]``: archive (never
delete) the conversation units a namespace's retention policy selects (see
:mod:`graphmem.agent.retention`)."""

from __future__ import annotations

import json

import typer

from graphmem.cli.common import cli_errors, console, ingest_progress, open_memory

app = typer.Typer(help="Archive old conversation units by the namespace's retention policy.")


@app.command("retain")
def retain(
    namespace: str | None = typer.Option(None, "--namespace", "-n",
                                         help="namespace (default GRAPHMEM_NAMESPACE)"),
    max_age_days: int | None = typer.Option(
        None, "--max-age-days", help="archive units older than N days (stores the policy)"),
    keep_last: int | None = typer.Option(
        None, "--keep-last", help="keep the newest N units of each conversation, archive the "
                                  "rest (stores the policy)"),
    batch_size: int = typer.Option(1_000, "--batch-size", help="units per write statement"),
    dry_run: bool = typer.Option(False, "--dry-run",
                                 help="say what would be archived; change nothing (no policy "
                                      "stored either)"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Apply the namespace's retention policy: archive the state events and associative
    episodes it selects (never those a current state rests on), so recall leaves them out
    unless asked (include_archived). With --max-age-days and/or --keep-last the policy becomes
    exactly those rules first (a rule not given is dropped); without them the stored policy
    applies."""
    from graphmem.agent.retention import check_policy
    from graphmem.agent.retention import retain as run_retain

    given = max_age_days is not None or keep_last is not None
    with cli_errors():
        rules = check_policy(max_age_days, keep_last) if given else None
        with open_memory(namespace) as mem:
            preview = run_retain(mem, batch_size, dry_run=True, policy=rules)
            total = sum(preview.archived.values())
            if dry_run or preview.policy is None:
                _show(preview, mem.namespace, as_json)
                return
            if given:
                mem.set_retention(max_age_days=max_age_days, keep_last=keep_last)
            with ingest_progress("retain", unit="unit", total=total) as progress:
                report = mem.retain(batch_size=batch_size, progress=progress)
    _show(report, mem.namespace, as_json)


def _show(report, namespace: str, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report.model_dump(mode="json"), indent=1))
        return
    if report.policy is None:
        console.print(f"no retention policy in namespace {namespace!r}: nothing archived (set "
                      "one with --max-age-days and/or --keep-last)")
        return
    rules = ", ".join(f"{rule} {value}" for rule in ("max_age_days", "keep_last")
                      if (value := getattr(report.policy, rule)) is not None)
    verb = "would archive" if report.dry_run else "archived"
    console.print(f"{verb} {sum(report.archived.values())} units {report.archived} of namespace "
                  f"{namespace!r} ({rules}; by rule {report.by_rule}); kept {report.kept} that "
                  "current states rest on")
    if not report.dry_run:
        audit = f"; audit record {report.audit_id}" if report.audit_id else ""
        console.print(f"{report.batches} batches, {report.seconds:.1f} s{audit}")

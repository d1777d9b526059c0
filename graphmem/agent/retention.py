"""Retention: bounded growth of what recall ranks, by archiving (never deleting) old
conversation units.

A namespace's **retention policy** (one :class:`graphmem.schema.retention.RetentionPolicy` node,
``GraphMemory.set_retention``) has up to two rules over its *conversation units* -- state
memory's Events and associative memory's Episodes, one per stored message (the memories whose
class sets :attr:`graphmem.memory.Memory.message_queries`):

- ``max_age_days`` (days): archive the units that occurred (``occurred_at``) more than that many
  days before the run;
- ``keep_last`` (units): cap each conversation's raw history: archive all but its newest
  ``keep_last`` units (conversation order: time, then arrival position).

A unit either rule selects is archived unless it is **pinned**: an Event that is evidence of a
current state (``(:Topic)-[:CURRENT_STATE]->(:State)-[:EVIDENCED_BY]->(:Event)``), and the
Episode of the same conversation and source id as such an Event. Nothing else pins a unit:
insight and experience memory are fed by task feedback and cite no conversation unit.

``GraphMemory.retain`` (:func:`retain`) applies the policy: one read per memory selects the
units (``<memory>/find_archivable_units``), then write batches of at most ``batch_size`` units,
one statement each (``<memory>/archive_units``), each setting ``archived_at = datetime()`` on
its units and replacing their ``ns_token`` with the namespace's archived token
(:func:`graphmem.retrieval.text.archived_token`), after raising the unit version of their
conversations' write locks (the retrieval engine's vector-cache token) in the same
transaction. An archived unit keeps its properties, vectors and edges (topic chains, timelines,
evidence), so ``counts()`` and the graph are unchanged; recall leaves it out unless asked
(``include_archived=True``). A second run archives nothing new. Every run that archived
something writes an :class:`graphmem.schema.audit.AuditRecord` (``action="retain"``).

Cost and effect on recall: docs/retention.md.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from graphmem.errors import InvalidInputError
from graphmem.memory import check_count
from graphmem.names import node_id
from graphmem.retrieval.text import archived_token
from graphmem.timeparse import time_param

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: The rules of a policy, in the order reports list them.
RULES = ("max_age_days", "keep_last")
#: Largest ``max_age_days`` (about 273 years).
MAX_AGE_DAYS = 100_000
#: Largest ``keep_last`` (units per conversation).
MAX_KEEP_LAST = 10_000_000
#: Default and largest units per write batch (one statement each).
BATCH_SIZE = 1_000
MAX_BATCH_SIZE = 100_000


class Retention(BaseModel):
    """A namespace's retention policy.

    Attributes:
        max_age_days: archive units older than this many days (None: no age rule).
        keep_last: keep only the newest this many units per conversation (None: no count rule).
        updated_at: when the policy was set (aware datetime; None before it is stored).
    """

    max_age_days: int | None = None
    keep_last: int | None = None
    updated_at: datetime | None = None


class RetentionReport(BaseModel):
    """What one :func:`retain` run did (or, with ``dry_run``, would do).

    Attributes:
        policy: the policy applied (None: the namespace has none; nothing is archived).
        cutoff: the instant of the age rule (units that occurred before it are selected; None
            without ``max_age_days``).
        archived: units archived per label, ``{"Event": n, "Episode": m}``.
        by_rule: of those, the units each rule selected, ``{rule: {label: n}}`` (a unit both
            rules select counts under both).
        kept: units a rule selected but left unarchived because a current state needs them
            (pinned), per label.
        batches: write statements run (one per batch of at most ``batch_size`` units).
        seconds: wall time of the run.
        dry_run: True when nothing was written.
        audit_id: the id of the ``AuditRecord`` written ("" when nothing was archived).
    """

    policy: Retention | None = None
    cutoff: datetime | None = None
    archived: dict[str, int] = Field(default_factory=dict)
    by_rule: dict[str, dict[str, int]] = Field(default_factory=dict)
    kept: dict[str, int] = Field(default_factory=dict)
    batches: int = 0
    seconds: float = 0.0
    dry_run: bool = False
    audit_id: str = ""


def check_policy(max_age_days: Any = None, keep_last: Any = None) -> Retention:
    """The validated rules (pure).

    Raises:
        InvalidInputError: a rule that is not None or an integer (not a bool) in its range
            (``max_age_days`` 1..:data:`MAX_AGE_DAYS` days, ``keep_last``
            1..:data:`MAX_KEEP_LAST` units), naming the rule and the value.
    """
    if max_age_days is not None:
        check_count("max_age_days", max_age_days, low=1, high=MAX_AGE_DAYS)
    if keep_last is not None:
        check_count("keep_last", keep_last, low=1, high=MAX_KEEP_LAST)
    return Retention(max_age_days=max_age_days, keep_last=keep_last)


def check_batch_size(batch_size: Any) -> int:
    """``batch_size`` checked (pure): an integer in 1..:data:`MAX_BATCH_SIZE` units.

    Raises:
        InvalidInputError: naming the value.
    """
    return check_count("batch_size", batch_size, low=1, high=MAX_BATCH_SIZE)


def age_cutoff(policy: Retention, now: datetime) -> datetime | None:
    """The instant before which the age rule selects units: ``now`` minus ``max_age_days`` days
    (UTC; None without an age rule). Pure.

    Raises:
        InvalidInputError: a naive ``now``.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise InvalidInputError(f"now must be time-zone-aware, got {now.isoformat()!r}")
    if policy.max_age_days is None:
        return None
    return now.astimezone(timezone.utc) - timedelta(days=policy.max_age_days)


def plan_archive(candidates: list[list[Any]], pinned: list[str]
                 ) -> tuple[list[str], dict[str, tuple[bool, bool]], int]:
    """Split one label's selection (pure): ``candidates`` ``[[id, by_age, by_count], ...]`` and
    the ``pinned`` ids (``find_archivable_units``) into the ids to archive (sorted), each one's
    ``(by_age, by_count)`` flags, and how many candidates are kept because they are pinned."""
    keep = set(pinned)
    flags = {str(uid): (bool(age), bool(count)) for uid, age, count in candidates
             if uid not in keep}
    kept = sum(1 for uid, _, _ in candidates if uid in keep)
    return sorted(flags), flags, kept


def _stores(mem: GraphMemory) -> list[tuple[str, str]]:
    """``(memory name, query folder)`` of every memory holding conversation units that has the
    retention queries."""
    names = set(mem.runner.registry.names())
    out = []
    for name, memory in mem.memories().items():
        folder = getattr(memory, "message_queries", None)
        if folder and {f"{folder}/find_archivable_units", f"{folder}/archive_units"} <= names:
            out.append((name, folder))
    return out


def _policy(row: dict[str, Any]) -> Retention:
    stamp = row.get("updated_at")
    return Retention(max_age_days=row["max_age_days"], keep_last=row["keep_last"],
                     updated_at=stamp.to_native() if hasattr(stamp, "to_native") else stamp)


def set_retention(mem: GraphMemory, max_age_days: int | None = None,
                  keep_last: int | None = None) -> Retention | None:
    """Store ``mem``'s namespace's retention policy (replacing the one stored); both None
    clears it. Nothing is archived until :func:`retain` runs.

    Args:
        max_age_days: archive units that occurred more than this many days before a run
            (1..:data:`MAX_AGE_DAYS`; None: no age rule).
        keep_last: archive all but the newest this many units of each conversation
            (1..:data:`MAX_KEEP_LAST`; None: no count rule).
    Returns:
        The stored :class:`Retention`, None when cleared.
    Raises:
        InvalidInputError: see :func:`check_policy` (nothing written). DatabaseError subclasses.
    """
    policy = check_policy(max_age_days, keep_last)
    ns = mem.namespace
    if policy.max_age_days is None and policy.keep_last is None:
        mem.runner.write("core/delete_retention_policy", namespace=ns)
        logger.info("retention policy of %s cleared", ns)
        return None
    [row] = mem.runner.write("core/set_retention_policy", namespace=ns,
                             id=node_id(ns, "retention-policy"),
                             max_age_days=policy.max_age_days, keep_last=policy.keep_last)
    logger.info("retention policy of %s: max_age_days=%s keep_last=%s", ns,
                policy.max_age_days, policy.keep_last)
    return _policy(row)


def retention(mem: GraphMemory) -> Retention | None:
    """``mem``'s namespace's stored retention policy, None when it has none."""
    rows = mem.runner.read("core/get_retention_policy", namespace=mem.namespace)
    return _policy(rows[0]) if rows else None


def retain(mem: GraphMemory, batch_size: int = BATCH_SIZE,
           progress: Callable[[int], None] | None = None, dry_run: bool = False, *,
           now: datetime | None = None, policy: Retention | None = None) -> RetentionReport:
    """Apply ``mem``'s namespace's retention policy (see the module docstring).

    Args:
        batch_size: units per write statement (1..:data:`MAX_BATCH_SIZE`).
        progress: called with the units each batch archived, after its commit.
        dry_run: report what would be archived (``archived``, ``by_rule``, ``kept``) and write
            nothing (no audit record either).
        now: the run's clock for the age rule (aware; default the current UTC time).
        policy: apply these rules instead of the stored policy (checked with
            :func:`check_policy`; not stored), e.g. a dry run of rules before setting them.
    Returns:
        :class:`RetentionReport` (an empty one, ``policy`` None, without a stored policy).
    Raises:
        InvalidInputError: a bad ``batch_size``, ``policy`` or a naive ``now`` (nothing
            written).
        DatabaseError subclasses: a batch failed (the batches before it stay archived; running
            again completes the run).
    """
    began = time.perf_counter()
    batch_size = check_batch_size(batch_size)
    clock = now if now is not None else datetime.now(timezone.utc)
    age_cutoff(Retention(), clock)  # a naive clock is refused before anything is read
    if policy is not None:
        policy = check_policy(policy.max_age_days, policy.keep_last)
    else:
        policy = retention(mem)
    report = RetentionReport(policy=policy, dry_run=dry_run)
    if policy is None:
        report.seconds = time.perf_counter() - began
        return report
    report.cutoff = age_cutoff(policy, clock)
    ns = mem.namespace
    report.by_rule = {rule: {} for rule in RULES}
    for _, folder in _stores(mem):
        [row] = mem.runner.read(f"{folder}/find_archivable_units", namespace=ns,
                                cutoff=time_param(report.cutoff), keep_last=policy.keep_last)
        label = row["label"]
        ids, flags, kept = plan_archive(row["candidates"], row["pinned"])
        report.kept[label] = kept
        done = ids if dry_run else []
        for start in range(0, 0 if dry_run else len(ids), batch_size):
            [written] = mem.runner.write(f"{folder}/archive_units", namespace=ns,
                                         ids=ids[start:start + batch_size],
                                         archived_token=archived_token(ns))
            report.batches += 1
            done.extend(written["archived"])
            if progress is not None:
                progress(len(written["archived"]))
        report.archived[label] = len(done)
        for rule, index in zip(RULES, (0, 1), strict=True):
            report.by_rule[rule][label] = sum(1 for uid in done if flags[uid][index])
    archived = sum(report.archived.values())
    if archived and not dry_run:
        counts = {key: getattr(report, key) for key in ("archived", "by_rule", "kept", "batches")}
        selectors = {"max_age_days": policy.max_age_days, "keep_last": policy.keep_last,
                     "cutoff": time_param(report.cutoff)}
        [row] = mem.runner.write("core/record_audit", namespace=ns, id=str(uuid.uuid4()),
                                 action="retain", actor="unknown",
                                 selectors=json.dumps(selectors, sort_keys=True),
                                 counts=json.dumps(counts, sort_keys=True))
        report.audit_id = row["id"]
    report.seconds = time.perf_counter() - began
    logger.info("retain in %s: %s archived (%s kept for current states) in %d batches, %.1f s%s",
                ns, report.archived, report.kept, report.batches, report.seconds,
                " (dry run)" if dry_run else "")
    return report


__all__ = ["BATCH_SIZE", "MAX_AGE_DAYS", "MAX_BATCH_SIZE", "MAX_KEEP_LAST", "RULES",
           "Retention", "RetentionReport", "age_cutoff", "check_batch_size", "check_policy",
           "plan_archive", "retain", "retention", "set_retention"]

"""Time travel: ``recall(..., as_of=t)`` answers as the memory would have answered at ``t`` (pure).

graphmem keeps two times of what it holds (bi-temporal):

- *valid time*: when a thing happened or held -- an Event's ``occurred_at`` (the message's own
  timestamp), a State's interval ``[valid_from, valid_to)`` (``valid_from``: the time of the event
  that established it; ``valid_to``: the ``valid_from`` of the state that replaced it, None while
  it holds);
- *transaction time*: when graphmem learned it -- every node's ``created_at`` (the server's clock
  at the write), and an insight's ``archived_at`` (when an ARCHIVE or REVISE retired it).

``as_of=t`` is one instant on both axes, each memory using the time its items have:

- state and associative memory (conversation facts): only events / episodes that occurred at or
  before ``t`` and states that became valid at or before ``t`` are items, and each state is judged
  at ``t``: a state replaced later (``valid_to > t``) was its topic's current state at ``t``
  (``current`` True, ``valid_to`` None: it was not known to end), one replaced by then is
  superseded (:func:`judge_state_at`);
- insight memory: insights recorded at or before ``t`` (``created_at``) that were active then
  (not archived, or archived after ``t``), supported by queries recorded by then;
- experience memory: tasks recorded at or before ``t``.

In every memory ``as_of`` is the end of the recall's time window: with ``since`` / ``until`` the
window becomes ``since <= time < min(until, t + 1 microsecond)`` (:func:`check_as_of`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from graphmem.errors import InvalidInputError
from graphmem.timeparse import check_window, epoch_us, parse_timestamp, to_utc

#: The smallest step of the stored times: ``as_of`` includes what happened at ``as_of`` itself.
TICK = timedelta(microseconds=1)


def parse_as_of(as_of: datetime | str | None) -> datetime | None:
    """``as_of`` as an aware UTC datetime (None kept).

    Raises:
        InvalidInputError: naming the value: naive, text without an offset, not a time.
    """
    if as_of is None:
        return None
    if isinstance(as_of, str):
        as_of = parse_timestamp(as_of, field="as_of")
    if not isinstance(as_of, datetime):
        raise InvalidInputError(f"as_of {as_of!r} is not a time: give a time-zone-aware "
                                "datetime or ISO 8601 text with an offset")
    try:
        return to_utc(as_of, field="as_of")
    except OverflowError as exc:
        raise InvalidInputError(f"as_of {as_of.isoformat()!r} is outside the years 1-9999 in "
                                "UTC: give a time within them") from exc


def check_as_of(since: datetime | str | None = None, until: datetime | str | None = None,
                as_of: datetime | str | None = None
                ) -> tuple[datetime | None, datetime | None, datetime | None]:
    """The checked ``(since, until, as_of)`` of a recall, ``until`` narrowed to end just after
    ``as_of`` (``min(until, as_of + 1 µs)``), all UTC (None kept).

    Raises:
        InvalidInputError: naming the value: a bad ``since`` / ``until`` / ``as_of``
            (see :func:`graphmem.timeparse.check_window`, :func:`parse_as_of`), ``since >=
            until``, or ``since`` after ``as_of`` (nothing could be recalled).
    """
    since, until = check_window(since, until)
    when = parse_as_of(as_of)
    if when is None:
        return since, until, None
    if since is not None and since > when:
        raise InvalidInputError(f"since {since.isoformat()!r} is after as_of {when.isoformat()!r}: "
                                "nothing had happened in the window by then; give a since at or "
                                "before as_of")
    try:
        end = when + TICK
    except OverflowError:  # as_of at datetime.max: every stored time is before it
        return since, until, when
    return since, end if until is None else min(until, end), when


def as_of_param(as_of: datetime | None) -> int | None:
    """``as_of`` as the recall queries take it: epoch microseconds
    (:func:`graphmem.timeparse.epoch_us`), None when not set."""
    return None if as_of is None else epoch_us(as_of)


def judge_state_at(current: bool | None, valid_to: datetime | None,
                   as_of: datetime | None) -> tuple[bool | None, datetime | None]:
    """A state's ``(current, valid_to)`` as they were at ``as_of`` (unchanged when None).

    The state is one that became valid at or before ``as_of`` (the recall window keeps no
    other). Closed at or before ``as_of``: superseded then too (unchanged). Closed after it:
    it was its topic's current state at ``as_of`` and not yet known to end (``(True, None)``).
    Current now: current then. Neither current nor closed (a state off its topic's chain, such
    as a conflicting one): unchanged.

    Args:
        current: the state's judgement now. valid_to: its end (aware), None while it holds.
        as_of: the instant (aware) or None.
    """
    if as_of is None or valid_to is None:
        return current, valid_to
    if valid_to > as_of:
        return True, None
    return current, valid_to


def judge_row_at(row: dict[str, Any], as_of: datetime | None) -> dict[str, Any]:
    """``row`` (a state row of the state queries: ``current``, ``valid_to`` a Neo4j or Python
    datetime) judged at ``as_of`` (:func:`judge_state_at`); the row itself when ``as_of`` is
    None."""
    if as_of is None:
        return row
    end = row.get("valid_to")
    end = end.to_native() if hasattr(end, "to_native") else end
    current, valid_to = judge_state_at(row.get("current"), end, as_of)
    return {**row, "current": current, "valid_to": valid_to}


__all__ = ["TICK", "as_of_param", "check_as_of", "judge_row_at", "judge_state_at", "parse_as_of"]

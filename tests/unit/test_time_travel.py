"""The pure parts of time travel (graphmem.time_travel): the as_of window and the judgement of
a state at an instant."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from graphmem.errors import InvalidInputError
from graphmem.time_travel import (TICK, as_of_param, check_as_of, judge_row_at, judge_state_at,
                                  parse_as_of)

UTC = timezone.utc
T = datetime(2024, 6, 1, 12, tzinfo=UTC)


def test_as_of_ends_the_window_just_after_it() -> None:
    assert check_as_of(None, None, None) == (None, None, None)
    assert check_as_of(None, None, T) == (None, T + TICK, T)
    later = T + timedelta(days=3)
    assert check_as_of(None, later, T) == (None, T + TICK, T)
    earlier = T - timedelta(days=3)
    assert check_as_of(None, earlier, T) == (None, earlier, T)
    assert check_as_of(T, None, "2024-06-01T14:00:00+02:00") == (T, T + TICK, T)
    assert as_of_param(T) == int(T.timestamp()) * 1_000_000 and as_of_param(None) is None


def test_bad_as_of_is_refused_naming_it() -> None:
    with pytest.raises(InvalidInputError, match="as_of '2024-06-01T12:00:00'"):
        parse_as_of("2024-06-01T12:00:00")
    with pytest.raises(InvalidInputError, match="as_of 42 is not a time"):
        parse_as_of(42)
    with pytest.raises(InvalidInputError, match="is after as_of"):
        check_as_of(T + TICK, None, T)
    with pytest.raises(InvalidInputError, match="as_of"):
        parse_as_of(datetime(2024, 6, 1))


def test_as_of_at_the_ends_of_time() -> None:
    last = datetime.max.replace(tzinfo=timezone.utc)
    assert check_as_of(None, None, last) == (None, None, last)
    assert check_as_of(None, T, last) == (None, T, last)
    with pytest.raises(InvalidInputError, match=r"as_of '0001-01-01T00:00:00\+14:00' is outside "
                                                 r"the years 1-9999 in UTC"):
        check_as_of(as_of="0001-01-01T00:00:00+14:00")
    with pytest.raises(InvalidInputError, match="outside the years 1-9999"):
        parse_as_of(datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5))))


def test_a_state_is_judged_at_the_instant() -> None:
    closed = T + timedelta(days=1)
    assert judge_state_at(False, closed, T) == (True, None)        # replaced later
    assert judge_state_at(False, T, T) == (False, T)               # replaced at T
    assert judge_state_at(True, None, T) == (True, None)           # still current
    assert judge_state_at(False, None, T) == (False, None)         # off the chain
    assert judge_state_at(False, closed, None) == (False, closed)  # now
    row = {"id": "s1", "current": False, "valid_to": closed}
    assert judge_row_at(row, T) == {"id": "s1", "current": True, "valid_to": None}
    assert judge_row_at(row, None) is row

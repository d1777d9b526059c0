"""graphmem.timeparse: one parser, offsets and known abbreviations honoured, everything else
refused with the field and the value named (never a guess, never today's date filled in)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.errors import InvalidInputError
from graphmem.timeparse import AMBIGUOUS_ABBREVIATIONS, ZONE_ABBREVIATIONS, parse_timestamp, time_param


def tz(hours: float) -> timezone:
    return timezone(timedelta(hours=hours))


@pytest.mark.parametrize(("text", "expected"), [
    ("2023-05-08T13:56:00+02:00", datetime(2023, 5, 8, 13, 56, tzinfo=tz(2))),
    ("2023-05-08T13:56:00Z", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
    ("2023-05-08 13:56:00-07:00", datetime(2023, 5, 8, 13, 56, tzinfo=tz(-7))),
    ("May 8, 2023 1:56 PM PDT", datetime(2023, 5, 8, 13, 56, tzinfo=tz(-7))),
    ("8 May 2023 13:56 PST", datetime(2023, 5, 8, 13, 56, tzinfo=tz(-8))),
    ("8 May 2023 13:56 EST", datetime(2023, 5, 8, 13, 56, tzinfo=tz(-5))),
    ("8 May 2023 13:56 EDT", datetime(2023, 5, 8, 13, 56, tzinfo=tz(-4))),
    ("8 May 2023 13:56 CST", datetime(2023, 5, 8, 13, 56, tzinfo=tz(-6))),
    ("8 May 2023 13:56 CEST", datetime(2023, 5, 8, 13, 56, tzinfo=tz(2))),
    ("8 May 2023 13:56 BST", datetime(2023, 5, 8, 13, 56, tzinfo=tz(1))),
    ("8 May 2023 13:56 JST", datetime(2023, 5, 8, 13, 56, tzinfo=tz(9))),
    ("8 May 2023 13:56 AEST", datetime(2023, 5, 8, 13, 56, tzinfo=tz(10))),
    ("8 May 2023 13:56 GMT", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
    ("Mon, 08 May 2023 13:56:00 +0100", datetime(2023, 5, 8, 13, 56, tzinfo=tz(1))),
])
def test_zones_are_honoured(text, expected) -> None:
    got = parse_timestamp(text, field="turn timestamp")
    assert got == expected and got.utcoffset() == expected.utcoffset()


def test_locomo_format_needs_a_zone_from_the_caller() -> None:
    assert parse_timestamp("1:56 pm on 8 May, 2023", field="session_1_date_time",
                           default_tz=UTC) == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_timestamp("12:09 am on 13 September, 2023", field="s", default_tz=UTC) == \
        datetime(2023, 9, 13, 0, 9, tzinfo=UTC)
    with pytest.raises(InvalidInputError, match=r"session_1_date_time '1:56 pm on 8 May, 2023'.*"
                                                r"no time zone"):
        parse_timestamp("1:56 pm on 8 May, 2023", field="session_1_date_time")


@pytest.mark.parametrize(("text", "why"), [
    ("2023-05-08 13:56 IST", "ambiguous"),
    ("8 May 2023 13:56 IST", "ambiguous"),
    ("8 May 2023 13:56 XYZ", "'XYZ' is neither"),
    ("tomorrow-ish", "'tomorrow' is neither"),
    ("session one", "'session' is neither"),
    ("N/A", "'N' is neither"),
    ("8 May", "no year"),
    ("May 2023", "no day"),
    ("1:56 pm", "no year or month or day"),
    ("31 February 2023 10:00 UTC", "day is out of range"),
    ("", "empty"),
    ("   ", "empty"),
    ("13:56 pm on 8 May, 2023", "12-hour"),
])
def test_non_dates_and_ambiguity_are_refused_naming_field_and_value(text, why) -> None:
    with pytest.raises(InvalidInputError, match=rf"turn D1:3 timestamp {text!r}.*{why}"):
        parse_timestamp(text, field="turn D1:3 timestamp", default_tz=UTC)


@pytest.mark.parametrize("value", [None, 1683554160, 3.5, b"2023-05-08"])
def test_non_strings_are_refused(value) -> None:
    with pytest.raises(InvalidInputError, match="expected a string or a datetime"):
        parse_timestamp(value, field="f")


def test_naive_values_get_default_tz_or_are_refused() -> None:
    naive = datetime(2023, 5, 8, 13, 56)
    assert parse_timestamp(naive, field="f", default_tz=UTC) == naive.replace(tzinfo=UTC)
    with pytest.raises(InvalidInputError, match="no time zone"):
        parse_timestamp(naive, field="f")
    with pytest.raises(InvalidInputError, match="no time zone"):
        parse_timestamp("2023-05-08T13:56:00", field="f")


def test_tables_do_not_overlap() -> None:
    assert not set(ZONE_ABBREVIATIONS) & set(AMBIGUOUS_ABBREVIATIONS)


aware = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 12, 31),
                     timezones=st.integers(-14 * 60, 14 * 60).map(
                         lambda m: timezone(timedelta(minutes=m))))


@given(aware)
def test_iso_round_trip(moment) -> None:
    got = parse_timestamp(moment.isoformat(), field="f")
    assert got == moment and got.utcoffset() == moment.utcoffset()


@given(aware, st.sampled_from(sorted(ZONE_ABBREVIATIONS)))
def test_written_dates_with_abbreviations(moment, abbr) -> None:
    moment = moment.replace(second=0, microsecond=0, tzinfo=None)
    text = moment.strftime("%d %B %Y %H:%M ") + abbr
    got = parse_timestamp(text, field="f")
    assert got.replace(tzinfo=None) == moment
    assert got.utcoffset() == timedelta(seconds=ZONE_ABBREVIATIONS[abbr])


@given(st.text(alphabet=st.characters(categories=("L", "Zs", "P")), max_size=30))
def test_text_without_digits_is_never_a_timestamp(text) -> None:
    with pytest.raises(InvalidInputError):
        parse_timestamp(text, field="f", default_tz=UTC)


@given(st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 12, 31)))
def test_locomo_round_trip(moment) -> None:
    moment = moment.replace(second=0, microsecond=0)
    hour = moment.hour % 12 or 12
    text = f"{hour}:{moment.minute:02d} {'pm' if moment.hour >= 12 else 'am'} on " \
           f"{moment.day} {moment.strftime('%B')}, {moment.year}"
    assert parse_timestamp(text, field="f", default_tz=UTC) == moment.replace(tzinfo=UTC)


@pytest.mark.parametrize(("moment", "text"), [
    (datetime(2023, 5, 8, 13, 56, tzinfo=UTC), "2023-05-08T13:56:00+00:00"),
    (datetime(2023, 5, 8, 13, 56, 0, 123456, tzinfo=tz(-8)), "2023-05-08T13:56:00.123456-08:00"),
    (datetime(2023, 5, 8, 13, 56, tzinfo=ZoneInfo("Europe/Paris")),
     "2023-05-08T13:56:00+02:00[Europe/Paris]"),
    (None, None),
])
def test_time_param_is_iso_text_with_the_zone(moment, text) -> None:
    assert time_param(moment) == text


@given(aware)
def test_time_param_round_trips_through_the_parser(moment) -> None:
    got = parse_timestamp(time_param(moment), field="f")
    assert got == moment and got.utcoffset() == moment.utcoffset()


def test_time_param_refuses_a_naive_time() -> None:
    with pytest.raises(InvalidInputError, match="2023-05-08T13:56:00.*no time zone"):
        time_param(datetime(2023, 5, 8, 13, 56))

"""One time parser for every timestamp graphmem reads (conversation turns, session dates, dataset
records): :func:`parse_timestamp`. Pure; no I/O.

What it accepts, always giving a time-zone-aware :class:`~datetime.datetime`:

- ISO 8601 (``2023-05-08T13:56:00+02:00``, ``...Z``, ``2023-05-08 13:56``, ``2023-05-08``);
- LoCoMo's session format ``"1:56 pm on 8 May, 2023"``;
- other written dates with a day, a month and a year (``"May 8, 2023 1:56 PM PDT"``,
  ``"Mon, 08 May 2023 13:56:00 +0100"``), read by :func:`dateutil.parser.parse`;
- a :class:`~datetime.datetime` (returned as is when aware).

The time zone comes from the value: an ISO offset, a numeric offset, or one of the
abbreviations in :data:`ZONE_ABBREVIATIONS` (each a fixed UTC offset: the summer-time
abbreviations name their own offset, e.g. ``PDT`` = UTC-7). A value without a zone gets
``default_tz`` when the caller gives one (LoCoMo's dates carry none) and is refused otherwise.

What it refuses, with :class:`~graphmem.errors.InvalidInputError` naming the field and the value,
never guessing:

- an abbreviation that names several zones (:data:`AMBIGUOUS_ABBREVIATIONS`, e.g. ``IST``:
  India, Israel or Ireland) or one it does not know;
- any other word (``"tomorrow-ish"``, ``"session one"``, ``"N/A"``);
- a date without a year, month or day (``"8 May"``, ``"1:56 pm"``): nothing is filled in from
  today's date;
- a non-string, non-datetime value, an empty string, an impossible date (``"31 February 2023"``);
- a UTC offset of 18 hours or more either way (``+25:00``, ``-18:00``): Neo4j stores offsets
  within ±18:00 (real zones span -12:00..+14:00), so such a value is refused here, never later.

**Time ranges** (one rule everywhere): a range is half-open, ``[start, end)``: ``start <= t <
end``, so adjacent ranges tile time and 23:59:59.5 on a month's last day is inside that month.
The day, month and year a time belongs to are those of its **UTC** instant
(:func:`utc_day_range`, :func:`utc_month_range`, :func:`utc_year_range`), whatever offset the
message was written with: ``2023-01-31T23:30:00-05:00`` is 04:30 UTC on 1 February 2023, so it
belongs to February 2023. :func:`check_window` checks the ``since`` / ``until`` of a recall.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo

from dateutil import parser as dateutil_parser

from graphmem.errors import InvalidInputError

_H = 3600

#: UTC offsets graphmem accepts are strictly smaller than this either way: Neo4j stores offsets
#: within ±18:00 (Python's within ±24:00); real zones span -12:00..+14:00.
MAX_OFFSET = timedelta(hours=18)

#: Known zone abbreviations and their fixed UTC offsets in seconds. CST/CDT are North American
#: Central (as in the CST/CDT, EST/EDT... pairs), not China Standard Time; BST is British Summer
#: Time; AEST/AEDT Australian Eastern.
ZONE_ABBREVIATIONS: dict[str, int] = {
    "UTC": 0, "GMT": 0, "Z": 0, "UT": 0,
    "PST": -8 * _H, "PDT": -7 * _H,
    "MST": -7 * _H, "MDT": -6 * _H,
    "CST": -6 * _H, "CDT": -5 * _H,
    "EST": -5 * _H, "EDT": -4 * _H,
    "AKST": -9 * _H, "AKDT": -8 * _H, "HST": -10 * _H,
    "WET": 0, "WEST": 1 * _H, "BST": 1 * _H,
    "CET": 1 * _H, "CEST": 2 * _H,
    "EET": 2 * _H, "EEST": 3 * _H,
    "MSK": 3 * _H,
    "JST": 9 * _H, "KST": 9 * _H, "HKT": 8 * _H, "SGT": 8 * _H,
    "AWST": 8 * _H, "ACST": 9 * _H + 1800, "ACDT": 10 * _H + 1800,
    "AEST": 10 * _H, "AEDT": 11 * _H,
    "NZST": 12 * _H, "NZDT": 13 * _H,
}

#: Abbreviations that name several zones; refused with the candidates in the message.
AMBIGUOUS_ABBREVIATIONS: dict[str, str] = {
    "IST": "India (UTC+5:30), Israel (UTC+2) or Ireland (UTC+1)",
    "AST": "Atlantic (UTC-4) or Arabia (UTC+3)",
    "ADT": "Atlantic Daylight (UTC-3) or Arabia Daylight (UTC+4)",
    "ECT": "Ecuador (UTC-5) or Eastern Caribbean (UTC-4)",
    "MET": "Middle European (UTC+1) or Middle East (UTC+3:30)",
    "SST": "Samoa (UTC-11) or Singapore (UTC+8)",
    "CT": "US Central (UTC-6/-5) or China (UTC+8)",
    "ET": "US Eastern, with or without summer time",
    "PT": "US Pacific, with or without summer time",
    "MT": "US Mountain, with or without summer time",
}

_MONTHS = {"jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun",
           "june", "jul", "july", "aug", "august", "sep", "sept", "september", "oct", "october",
           "nov", "november", "dec", "december"}
_WEEKDAYS = {"mon", "monday", "tue", "tues", "tuesday", "wed", "wednesday", "thu", "thur",
             "thurs", "thursday", "fri", "friday", "sat", "saturday", "sun", "sunday"}
#: Other words a written date may hold: am/pm, ISO's T, ordinal suffixes, joining words.
_GLUE = {"am", "pm", "a", "p", "m", "t", "st", "nd", "rd", "th", "on", "at", "of", "and"}

_LOCOMO = re.compile(
    r"^\s*(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<ampm>[ap])\.?m\.?\s+on\s+(?P<day>\d{1,2})\s+"
    r"(?P<month>[A-Za-z]+)\.?,?\s+(?P<year>\d{4})\s*$", re.IGNORECASE)
_MONTH_NUMBER = {name: i for i, names in enumerate(
    [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
     ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
     ("oct", "october"), ("nov", "november"), ("dec", "december")], start=1) for name in names}
_TZINFOS = {name: (timezone.utc if off == 0 else timezone(timedelta(seconds=off), name))
            for name, off in ZONE_ABBREVIATIONS.items()}
# two defaults that differ in year, month and day: a field dateutil filled in from the default
# shows up as a difference between the two parses
_DEFAULTS = (datetime(2000, 1, 1), datetime(2004, 2, 2))


def _refuse(field: str, value: object, why: str) -> InvalidInputError:
    shown = value if not isinstance(value, str) or len(value) <= 80 else value[:80] + "..."
    return InvalidInputError(f"{field} {shown!r} is not a usable timestamp: {why}")


def check_offset(value: datetime, field: str = "time") -> datetime:
    """``value`` when its UTC offset (if any) is strictly within ±18:00 (:data:`MAX_OFFSET`,
    what Neo4j stores), else raise.

    Raises:
        InvalidInputError: naming ``field``, the value and the valid range.
    """
    return _offset(value, field, value.isoformat())


def _offset(result: datetime, field: str, value: object) -> datetime:
    """``result`` when its UTC offset is within :data:`MAX_OFFSET`, else the refusal."""
    try:
        offset = result.utcoffset()
    except ValueError:  # a tzinfo whose utcoffset() Python itself refuses
        raise _refuse(field, value, "its UTC offset is outside the valid range (strictly "
                                    "between -18:00 and +18:00)") from None
    if offset is not None and abs(offset) >= MAX_OFFSET:
        raise _refuse(field, value, f"its UTC offset {_show_offset(offset)} is outside the valid "
                                    "range (strictly between -18:00 and +18:00)")
    return result


def _show_offset(offset: timedelta) -> str:
    sign = "-" if offset < timedelta(0) else "+"
    minutes = int(abs(offset).total_seconds()) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _zone(result: datetime, field: str, value: object, default_tz: tzinfo | None) -> datetime:
    if result.tzinfo is not None and _offset(result, field, value).utcoffset() is not None:
        return result
    if default_tz is None:
        raise _refuse(field, value, "it has no time zone (add an offset such as +00:00 or a "
                                    "zone such as UTC, or pass default_tz)")
    return _offset(result.replace(tzinfo=default_tz), field, value)


def _check_words(text: str, field: str) -> None:
    for word in re.findall(r"[A-Za-z]+", text):
        low, up = word.lower(), word.upper()
        if up in AMBIGUOUS_ABBREVIATIONS:
            raise _refuse(field, text, f"time zone abbreviation {word!r} is ambiguous: "
                                       f"{AMBIGUOUS_ABBREVIATIONS[up]}; give a UTC offset instead")
        if low in _MONTHS or low in _WEEKDAYS or low in _GLUE or up in ZONE_ABBREVIATIONS:
            continue
        raise _refuse(field, text, f"{word!r} is neither a month, a weekday nor a known time "
                                   f"zone abbreviation")


def _locomo(match: re.Match, field: str, text: str) -> datetime:
    month = _MONTH_NUMBER.get(match["month"].lower())
    if month is None:
        raise _refuse(field, text, f"{match['month']!r} is not a month")
    hour = int(match["hour"])
    if not 1 <= hour <= 12:
        raise _refuse(field, text, f"hour {hour} is not a 12-hour clock hour")
    hour = hour % 12 + (12 if match["ampm"].lower() == "p" else 0)
    try:
        return datetime(int(match["year"]), month, int(match["day"]), hour, int(match["minute"]))
    except ValueError as exc:
        raise _refuse(field, text, str(exc)) from None


def parse_timestamp(value: object, *, field: str, default_tz: tzinfo | None = None) -> datetime:
    """Read one timestamp; see the module docstring for the accepted forms.

    Args:
        value: a string or a :class:`~datetime.datetime`.
        field: what the value is (e.g. ``"turn D1:3 timestamp"``), named in errors.
        default_tz: the zone of a value that carries none; ``None`` refuses such a value.
    Returns:
        An aware datetime (its offset is the value's own, or ``default_tz``'s).
    Raises:
        InvalidInputError: naming ``field`` and the value, for every refusal listed above.
    """
    if isinstance(value, datetime):
        return _zone(value, field, value, default_tz)
    if not isinstance(value, str):
        raise _refuse(field, value, f"expected a string or a datetime, got {type(value).__name__}")
    text = value.strip()
    if not text:
        raise _refuse(field, value, "it is empty")
    try:
        iso = datetime.fromisoformat(text)
    except ValueError:
        iso = None
    if iso is not None and re.match(r"^\d{4}-\d{2}-\d{2}", text):
        return _zone(iso, field, value, default_tz)
    if match := _LOCOMO.match(text):
        return _zone(_locomo(match, field, text), field, value, default_tz)
    _check_words(text, field)
    try:
        first, second = (dateutil_parser.parse(text, default=d, tzinfos=_TZINFOS)
                         for d in _DEFAULTS)
    except (ValueError, OverflowError, TypeError) as exc:
        raise _refuse(field, value, str(exc)) from None
    if (first.year, first.month, first.day) != (second.year, second.month, second.day):
        missing = [name for name, a, b in (("year", first.year, second.year),
                                           ("month", first.month, second.month),
                                           ("day", first.day, second.day)) if a != b]
        raise _refuse(field, value, f"it has no {' or '.join(missing)} (nothing is filled in "
                                    f"from today's date)")
    return _zone(first, field, value, default_tz)


def time_param(value: datetime | None) -> str | None:
    """An aware datetime as a Cypher parameter: ISO-8601 text (with the zone id in brackets when
    the time zone is a named one, ``zoneinfo`` or ``pytz``) that the query turns back into the
    same DateTime with ``datetime(row.x)``. The Python driver packs a datetime object in pure
    Python (about 40 µs each: the largest part of sending an ingest batch's rows), a string in
    well under a microsecond; Neo4j parses the text in the same statement.

    Raises:
        InvalidInputError: ``value`` is naive (graphmem stores instants only; attach a time zone,
            e.g. with :func:`parse_timestamp`).
    """
    if value is None:
        return None
    zone = value.tzinfo
    if zone is None or zone.utcoffset(value) is None:
        raise InvalidInputError(f"time {value.isoformat()!r} has no time zone: graphmem stores "
                                "instants; give it one (e.g. parse_timestamp(..., default_tz=...))")
    _offset(value, "time", value.isoformat())
    name = getattr(zone, "key", None) or getattr(zone, "zone", None)
    return f"{value.isoformat()}[{name}]" if isinstance(name, str) and name else value.isoformat()


# ----------------------------------------------------------------------------- time ranges
def to_utc(value: datetime, *, field: str = "time") -> datetime:
    """The same instant in UTC.

    Raises:
        InvalidInputError: ``value`` is not an aware datetime, or its offset is out of range.
    """
    if not isinstance(value, datetime):
        raise InvalidInputError(f"{field} {value!r} is not a datetime: give a time-zone-aware "
                                "datetime")
    if value.tzinfo is None or _offset(value, field, value).utcoffset() is None:
        raise InvalidInputError(f"{field} {value.isoformat()!r} has no time zone: give an aware "
                                "datetime (e.g. datetime(2023, 1, 1, tzinfo=timezone.utc))")
    return value.astimezone(timezone.utc)


def utc_day_range(value: datetime) -> tuple[datetime, datetime]:
    """``[start, end)`` in UTC of the UTC day ``value`` (aware) falls on.

    Raises:
        InvalidInputError: a naive value.
    """
    start = to_utc(value).replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + timedelta(days=1)


def month_range(year: int, month: int) -> tuple[datetime, datetime]:
    """``[start, end)`` in UTC of calendar month ``month`` (1..12) of ``year``: from 00:00 on
    its first day to 00:00 on the first day of the next month."""
    start = datetime(year, month, 1, tzinfo=timezone.utc)
    end = (datetime(year + 1, 1, 1, tzinfo=timezone.utc) if month == 12
           else datetime(year, month + 1, 1, tzinfo=timezone.utc))
    return start, end


def year_range(year: int) -> tuple[datetime, datetime]:
    """``[start, end)`` in UTC of ``year``: 1 January 00:00 to the next year's."""
    return datetime(year, 1, 1, tzinfo=timezone.utc), datetime(year + 1, 1, 1, tzinfo=timezone.utc)


def utc_month_range(value: datetime) -> tuple[datetime, datetime]:
    """``[start, end)`` in UTC of the UTC month ``value`` (aware) falls in."""
    utc = to_utc(value)
    return month_range(utc.year, utc.month)


def utc_year_range(value: datetime) -> tuple[datetime, datetime]:
    """``[start, end)`` in UTC of the UTC year ``value`` (aware) falls in."""
    return year_range(to_utc(value).year)


def in_window(value: datetime, since: datetime | None, until: datetime | None) -> bool:
    """``since <= value < until`` (a None bound is open); all aware."""
    return (since is None or value >= since) and (until is None or value < until)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def epoch_us(value: datetime) -> int:
    """Microseconds since 1970-01-01T00:00Z of an aware datetime (floor for earlier times):
    how the recall queries compare times. Cypher's own ``DateTime`` comparison orders two
    values of the same instant by their zone (``00:00-05:00`` sorts before ``05:00Z``), so the
    queries compare ``t.epochMillis * 1000 + t.microsecond % 1000`` with these integers instead.

    Raises:
        InvalidInputError: a naive value.
    """
    return (to_utc(value) - _EPOCH) // timedelta(microseconds=1)


def window_params(since: datetime | None, until: datetime | None) -> dict[str, int | None]:
    """``{"since": ..., "until": ...}`` as the recall queries take them: epoch microseconds
    (:func:`epoch_us`) or None for an open side. Pass values :func:`check_window` returned."""
    return {"since": None if since is None else epoch_us(since),
            "until": None if until is None else epoch_us(until)}


def _bound(value: object, field: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        return to_utc(parse_timestamp(value, field=field), field=field)
    if not isinstance(value, datetime):
        raise InvalidInputError(f"{field} {value!r} is not a time: give a time-zone-aware "
                                "datetime or ISO 8601 text with an offset")
    return to_utc(value, field=field)


def check_window(since: datetime | str | None = None,
                 until: datetime | str | None = None) -> tuple[datetime | None, datetime | None]:
    """The ``since`` / ``until`` of a recall, checked: the half-open window ``since <= t <
    until`` (either bound may be None: open on that side).

    Args:
        since, until: time-zone-aware datetimes, ISO 8601 text with an offset (read by
            :func:`parse_timestamp`, no default zone), or None.
    Returns:
        ``(since, until)`` in UTC (None kept).
    Raises:
        InvalidInputError: naming the value: a naive datetime or text without a zone, an
            offset out of range, something that is not a time, or ``since >= until`` (an
            empty window).
    """
    start, end = _bound(since, "since"), _bound(until, "until")
    if start is not None and end is not None and start >= end:
        raise InvalidInputError(f"since {start.isoformat()!r} is not before until "
                                f"{end.isoformat()!r}: the window since <= t < until is empty; "
                                "give a since earlier than until")
    return start, end


__all__ = ["AMBIGUOUS_ABBREVIATIONS", "MAX_OFFSET", "check_offset", "ZONE_ABBREVIATIONS", "check_window",
           "epoch_us", "in_window", "month_range", "parse_timestamp", "time_param", "to_utc",
           "utc_day_range", "utc_month_range", "utc_year_range", "window_params", "year_range"]

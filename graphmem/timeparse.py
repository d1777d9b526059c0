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
- a non-string, non-datetime value, an empty string, an impossible date (``"31 February 2023"``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo

from dateutil import parser as dateutil_parser

from graphmem.errors import InvalidInputError

_H = 3600

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


def _zone(result: datetime, field: str, value: object, default_tz: tzinfo | None) -> datetime:
    if result.tzinfo is not None and result.tzinfo.utcoffset(result) is not None:
        return result
    if default_tz is None:
        raise _refuse(field, value, "it has no time zone (add an offset such as +00:00 or a "
                                    "zone such as UTC, or pass default_tz)")
    return result.replace(tzinfo=default_tz)


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
    except (ValueError, OverflowError) as exc:
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
    name = getattr(zone, "key", None) or getattr(zone, "zone", None)
    return f"{value.isoformat()}[{name}]" if isinstance(name, str) and name else value.isoformat()


__all__ = ["AMBIGUOUS_ABBREVIATIONS", "ZONE_ABBREVIATIONS", "parse_timestamp", "time_param"]

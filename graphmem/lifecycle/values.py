"""Property values of a namespace export as JSON (pure: no I/O).

A Neo4j property is a number, a string, a boolean, a temporal value, a byte array or a list of
one of them. JSON carries the plain ones as they are; every other value becomes an object with
a single ``$``-key (Neo4j has no map properties, so an object is never a plain value):

================  ====================================================================
``$f32``          a list of floats every one of which is a float32 exactly (the vectors
                  graphmem stores: ``embedding``, ``passage_embeddings``): base64 of the
                  little-endian float32 bytes
``$f64``          any other list of floats: base64 of the little-endian float64 bytes
``$float``        a float that is not finite: ``"NaN"``, ``"Infinity"``, ``"-Infinity"``
``$datetime``     a zoned DateTime: ``"YYYY-MM-DDTHH:MM:SS.nnnnnnnnn+HH:MM"`` (local wall
                  time with nanoseconds, its UTC offset); with a named zone, the zone id
                  under ``"zone"`` (``{"$datetime": "...+02:00", "zone": "Europe/Berlin"}``)
``$localdatetime``  a DateTime without zone: ``"YYYY-MM-DDTHH:MM:SS.nnnnnnnnn"``
``$date``         a Date: ``"YYYY-MM-DD"``
``$time``         a Time with offset: ``"HH:MM:SS.nnnnnnnnn+HH:MM"``
``$localtime``    a LocalTime: ``"HH:MM:SS.nnnnnnnnn"``
``$duration``     a Duration: ``[months, days, seconds, nanoseconds]``
``$bytes``        a byte array: base64
================  ====================================================================

Every encoding decodes to exactly the stored value (float lists bit for bit, temporal values to
the nanosecond with their offset or zone). The Python driver cannot tell a DateTime at offset
``+00:00`` from one in zone ``UTC`` (both come back in ``pytz.UTC``), so :func:`encode_value`
takes the zone as Neo4j names it (``n.created_at.timezone``: ``"Z"``, ``"+02:00"`` or
``"Europe/Berlin"``) from the export query.
"""

from __future__ import annotations

import base64
import math
import re
from datetime import datetime, timedelta, tzinfo
from typing import Any

import numpy as np
from neo4j.spatial import Point
from neo4j.time import Date, DateTime, Duration, Time

#: The ``$``-keys of encoded values.
ENCODINGS = ("$f32", "$f64", "$float", "$datetime", "$localdatetime", "$date", "$time",
             "$localtime", "$duration", "$bytes")
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_OFFSET = re.compile(r"^(.*?)(?:([+-])(\d\d):(\d\d)(?::(\d\d))?)$")
_STAMP = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?$")


class NamedZone(tzinfo):
    """A tzinfo that carries a zone id to the Neo4j driver: the driver sends a DateTime whose
    tzinfo has a ``key`` as its UTC instant plus that zone id, and the server shows the instant
    in the zone. The wall fields of a DateTime in this zone are the UTC ones (offset 0)."""

    def __init__(self, key: str) -> None:
        self.key = key

    def utcoffset(self, dt: Any) -> timedelta:  # noqa: D102
        return timedelta(0)

    def dst(self, dt: Any) -> timedelta:  # noqa: D102
        return timedelta(0)

    def tzname(self, dt: Any) -> str:  # noqa: D102
        return self.key

    def __repr__(self) -> str:
        return f"NamedZone({self.key!r})"


class FixedOffset(tzinfo):
    """A constant UTC offset that answers ``utcoffset`` for a ``neo4j.time.Time`` too (the
    standard library's ``timezone`` only answers for datetimes, and the driver asks a Time's
    tzinfo with the Time itself)."""

    def __init__(self, offset: timedelta) -> None:
        self.offset = offset

    def utcoffset(self, dt: Any) -> timedelta:  # noqa: D102
        return self.offset

    def dst(self, dt: Any) -> timedelta:  # noqa: D102
        return timedelta(0)

    def tzname(self, dt: Any) -> str:  # noqa: D102
        return _offset_text(self.offset)

    def __repr__(self) -> str:
        return f"FixedOffset({_offset_text(self.offset)!r})"


def _offset_text(offset: timedelta) -> str:
    seconds = int(offset.total_seconds())
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{sign}{hours:02d}:{minutes:02d}" + (f":{secs:02d}" if secs else "")


def _clock(value: Any) -> str:
    return f"{value.hour:02d}:{value.minute:02d}:{int(value.second):02d}.{value.nanosecond:09d}"


def _day(value: Any) -> str:
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"


def _floats(values: list[float]) -> dict[str, str]:
    array = np.asarray(values, dtype="<f8")
    single = array.astype("<f4")
    if np.array_equal(single.astype("<f8"), array, equal_nan=True) and \
            np.array_equal(np.signbit(single), np.signbit(array)):
        return {"$f32": base64.b64encode(single.tobytes()).decode("ascii")}
    return {"$f64": base64.b64encode(array.tobytes()).decode("ascii")}


def encode_value(value: Any, zone: Any = None) -> Any:
    """The JSON form of one stored property value (see the module docstring).

    Args:
        value: a value as the Neo4j driver returns it (``neo4j.time`` types for temporal ones).
        zone: for a zoned DateTime, Neo4j's name of its zone (``"Z"``, ``"+02:00"``,
            ``"Europe/Berlin"``); for a list of them, a list of names. None: taken from the
            value's tzinfo (exact except for ``+00:00`` against ``UTC``, which read as ``UTC``).
    Returns:
        A JSON-serialisable value.
    Raises:
        ValueError: a value of a type Neo4j does not store as a property (a map, None) or that
            this format does not carry (a spatial point), naming the type.
    """
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        name = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return {"$float": name}
    if isinstance(value, Point):  # a tuple subclass too
        raise ValueError(f"a property value of type {type(value).__name__} cannot be exported")
    if isinstance(value, Duration):  # a tuple subclass: before lists
        return {"$duration": [value.months, value.days, value.seconds, value.nanoseconds]}
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, float) for v in value):
            return _floats(list(value))
        zones = zone if isinstance(zone, (list, tuple)) else [None] * len(value)
        return [encode_value(v, z) for v, z in zip(value, zones, strict=True)]
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, DateTime):
        if value.tzinfo is None:
            return {"$localdatetime": f"{_day(value)}T{_clock(value)}"}
        text = f"{_day(value)}T{_clock(value)}{_offset_text(value.utcoffset())}"
        name = zone if isinstance(zone, str) else (getattr(value.tzinfo, "zone", None)
                                                   or getattr(value.tzinfo, "key", None))
        if name and name != "Z" and name[0] not in "+-":
            return {"$datetime": text, "zone": name}
        return {"$datetime": text}
    if isinstance(value, Date):
        return {"$date": _day(value)}
    if isinstance(value, Time):
        if value.tzinfo is None:
            return {"$localtime": _clock(value)}
        return {"$time": _clock(value) + _offset_text(value.utcoffset())}
    raise ValueError(f"a property value of type {type(value).__name__} cannot be exported")


def _split_offset(text: str) -> tuple[str, FixedOffset]:
    match = _OFFSET.match(text)
    if not match:
        raise ValueError(f"no UTC offset (+HH:MM) at the end of {text!r}")
    local, sign, hours, minutes, seconds = match.groups()
    total = int(hours) * 3600 + int(minutes) * 60 + int(seconds or 0)
    return local, FixedOffset(timedelta(seconds=-total if sign == "-" else total))


def _b64(text: Any, width: int) -> bytes:
    if not isinstance(text, str):
        raise ValueError(f"expected base64 text, got {type(text).__name__}")
    raw = base64.b64decode(text.encode("ascii"), validate=True)
    if len(raw) % width:
        raise ValueError(f"{len(raw)} bytes is not a whole number of {width}-byte floats")
    return raw


def _decode_object(value: dict[str, Any]) -> Any:
    keys = set(value)
    marked = [k for k in keys if k.startswith("$")]
    key = marked[0] if len(marked) == 1 else None
    allowed = {key, "zone"} if key == "$datetime" else {key}
    if key not in ENCODINGS or not keys <= allowed:
        raise ValueError(f"unknown value encoding {sorted(keys)} (known: {', '.join(ENCODINGS)})")
    data = value[key]
    if key == "$f32":
        return np.frombuffer(_b64(data, 4), dtype="<f4").astype(np.float64).tolist()
    if key == "$f64":
        return np.frombuffer(_b64(data, 8), dtype="<f8").tolist()
    if key == "$bytes":
        return _b64(data, 1)
    if key == "$float":
        if data not in _NON_FINITE:
            raise ValueError(f"$float must be NaN, Infinity or -Infinity, got {data!r}")
        return _NON_FINITE[data]
    if key == "$duration":
        if not (isinstance(data, list) and len(data) == 4
                and all(isinstance(x, int) and not isinstance(x, bool) for x in data)):
            raise ValueError(f"$duration must be [months, days, seconds, nanoseconds], got "
                             f"{data!r}")
        return Duration(months=data[0], days=data[1], seconds=data[2], nanoseconds=data[3])
    if not isinstance(data, str):
        raise ValueError(f"{key} must be text, got {type(data).__name__}")
    if key == "$date":
        return Date.from_iso_format(data)
    if key == "$localdatetime":
        return DateTime.from_iso_format(data)
    if key == "$localtime":
        return Time.from_iso_format(data)
    local, offset = _split_offset(data)
    if key == "$time":
        return Time.from_iso_format(local).replace(tzinfo=offset)
    zone = value.get("zone")
    if zone is not None and (not isinstance(zone, str) or not zone):
        raise ValueError(f"zone must be a zone id, got {zone!r}")
    return _datetime(local, offset, zone)


def _datetime(local: str, offset: FixedOffset, zone: str | None) -> DateTime:
    """A zoned DateTime from its local wall time text, offset and zone id (or None)."""
    match = _STAMP.match(local)
    if not match:
        raise ValueError(f"expected YYYY-MM-DDTHH:MM:SS[.fraction] before the offset, got "
                         f"{local!r}")
    *fields, fraction = match.groups()
    nanos = int((fraction or "0").ljust(9, "0"))
    if zone is None:
        return DateTime(*map(int, fields), nanos, tzinfo=offset)
    # the instant in UTC wall time (what the driver sends for a zone id), nanoseconds apart
    utc = datetime(*map(int, fields)) - offset.offset  # type: ignore[misc]
    return DateTime(utc.year, utc.month, utc.day, utc.hour, utc.minute, utc.second, nanos,
                    tzinfo=NamedZone(zone))


def decode_value(value: Any) -> Any:
    """The value to store for the JSON form ``value`` (the inverse of :func:`encode_value`):
    plain JSON values as they are, encoded ones as floats, bytes and ``neo4j.time`` values
    the driver sends back exactly.

    Raises:
        ValueError: an object that is not one of the encodings, a malformed encoding, a JSON
            null, an integer outside 64 bits, a list inside a list or a list of values of
            different kinds; the message names what is wrong (the caller adds the file and
            line).
    """
    if value is None:
        raise ValueError("a property value is null (Neo4j stores no null properties)")
    if isinstance(value, dict):
        try:
            return _decode_object(value)
        except (ValueError, TypeError, OverflowError) as exc:
            raise ValueError(f"bad encoded value {str(value)[:80]}: {exc}") from None
    if isinstance(value, list):
        items = [decode_value(v) for v in value]
        kinds = {_kind(v) for v in value}
        if "list" in kinds:
            raise ValueError("a list inside a list (Neo4j stores flat lists only)")
        if len(kinds) > 1:
            raise ValueError(f"a list mixing {' and '.join(sorted(kinds))} values (Neo4j stores "
                             "lists of one type only)")
        return items
    if isinstance(value, int) and not isinstance(value, bool) and not _I64[0] <= value <= _I64[1]:
        raise ValueError(f"the integer {value} does not fit Neo4j's 64-bit integers")
    return value


#: Neo4j's integer range (signed 64 bits).
_I64 = (-(2 ** 63), 2 ** 63 - 1)


def _kind(value: Any) -> str:
    """The storage kind of one JSON list element: its type name, or its encoding key."""
    if isinstance(value, dict):
        return next((k for k in value if k.startswith("$")), "object")
    return type(value).__name__


def encode_properties(properties: dict[str, Any], zones: Any = ()) -> dict[str, Any]:
    """``{key: encode_value(value)}`` of one node's or relationship's properties; ``zones`` are
    ``[key, zone name(s)]`` pairs of its zoned DateTime properties (the export query's).

    Raises:
        ValueError: see :func:`encode_value`, naming the key.
    """
    names = {key: zone for key, zone in zones or ()}
    out = {}
    for key, value in properties.items():
        try:
            out[key] = encode_value(value, names.get(key))
        except ValueError as exc:
            raise ValueError(f"property {key!r}: {exc}") from None
    return out


def decode_properties(properties: dict[str, Any]) -> dict[str, Any]:
    """``{key: decode_value(value)}``.

    Raises:
        ValueError: see :func:`decode_value`, naming the key; an empty key.
    """
    out = {}
    for key, value in properties.items():
        if not key:
            raise ValueError("an empty property key (Neo4j needs a name for every property)")
        try:
            out[key] = decode_value(value)
        except ValueError as exc:
            raise ValueError(f"property {key!r}: {exc}") from None
    return out


__all__ = ["ENCODINGS", "FixedOffset", "NamedZone", "decode_properties", "decode_value",
           "encode_properties", "encode_value"]

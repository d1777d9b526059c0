"""The one time-range rule (graphmem.timeparse): ranges are half-open ``[start, end)``, the day /
month / year a time belongs to is its UTC one, offsets are refused at parse time outside ±18 h,
and a recall's ``since`` / ``until`` is checked in one place; the memories, the engine, the vector
cache, the retrievers and the MCP tools all use it (no database here)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.associative.extraction import month_cue
from graphmem.errors import InvalidInputError
from graphmem.retrieval import HybridSearch
from graphmem.retrieval.text import resolve_dates
from graphmem.retrieval.vectors import NamespaceVectors
from graphmem.state.memory import time_range_of
from graphmem.timeparse import (
    check_window,
    epoch_us,
    in_window,
    month_range,
    parse_timestamp,
    time_param,
    to_utc,
    utc_day_range,
    utc_month_range,
    utc_year_range,
    window_params,
    year_range,
)

UTC = timezone.utc
#: Every offset Neo4j stores (strictly inside ±18 h), in minutes.
OFFSETS = st.integers(min_value=-18 * 60 + 1, max_value=18 * 60 - 1).map(
    lambda m: timezone(timedelta(minutes=m)))
AWARE = st.datetimes(min_value=datetime(1900, 1, 2), max_value=datetime(2200, 12, 30),
                     timezones=OFFSETS)


def _next(rule, start: datetime) -> tuple[datetime, datetime]:
    """The range of ``rule`` that follows the one starting at ``start``."""
    return rule(rule(start)[1])


@pytest.mark.parametrize("rule", [utc_day_range, utc_month_range, utc_year_range])
@given(when=AWARE)
def test_every_aware_time_falls_in_exactly_one_utc_range(rule, when: datetime) -> None:
    start, end = rule(when)
    assert start <= when < end                             # half-open: in its own range
    assert start.tzinfo == UTC and end.tzinfo == UTC and start < end
    # the neighbours tile time: the previous ends where this starts, the next starts where it
    # ends, and neither holds `when`
    before = rule(start - timedelta(microseconds=1))
    after = rule(end)
    assert before[1] == start and after[0] == end
    assert not in_window(when, *before) and not in_window(when, *after)
    # the range is the time's UTC one, whatever offset it was written with
    assert rule(when.astimezone(UTC)) == (start, end)
    assert rule(when.astimezone(timezone(timedelta(hours=-11)))) == (start, end)


@given(when=AWARE, since=st.none() | AWARE, until=st.none() | AWARE)
def test_epoch_microseconds_order_instants_as_the_window_does(when, since, until) -> None:
    """The queries compare epoch microseconds; they agree with datetime comparison."""
    params = window_params(since, until)
    t = epoch_us(when)
    expected = in_window(when, since, until)
    assert ((params["since"] is None or t >= params["since"])
            and (params["until"] is None or t < params["until"])) == expected


def test_month_and_year_ranges_are_half_open_and_tile() -> None:
    assert month_range(2023, 1) == (datetime(2023, 1, 1, tzinfo=UTC),
                                    datetime(2023, 2, 1, tzinfo=UTC))
    assert month_range(2022, 12) == (datetime(2022, 12, 1, tzinfo=UTC),
                                     datetime(2023, 1, 1, tzinfo=UTC))
    assert year_range(2022)[1] == year_range(2023)[0] == datetime(2023, 1, 1, tzinfo=UTC)
    last = datetime(2023, 1, 31, 23, 59, 59, 500000, tzinfo=UTC)
    assert in_window(last, *month_range(2023, 1)) and not in_window(last, *month_range(2023, 2))
    midnight = datetime(2023, 2, 1, tzinfo=UTC)
    assert not in_window(midnight, *month_range(2023, 1)) and in_window(midnight, *month_range(2023, 2))
    new_year = datetime(2022, 12, 31, 23, 59, 59, 500000, tzinfo=UTC)
    assert in_window(new_year, *year_range(2022)) and not in_window(new_year, *year_range(2023))


def test_a_message_belongs_to_its_utc_month_in_both_memories() -> None:
    late = datetime(2023, 1, 31, 23, 30, tzinfo=timezone(timedelta(hours=-5)))  # 04:30Z 1 Feb
    assert utc_month_range(late) == month_range(2023, 2)
    assert month_cue(late) == "february 2023"                        # associative time cue
    january = time_range_of("What happened in January 2023?")         # state question range
    february = time_range_of("What happened in February 2023?")
    assert not in_window(late, january.start, january.end)
    assert in_window(late, february.start, february.end)
    assert month_cue(datetime(2023, 1, 31, 23, 59, 59, 500000, tzinfo=UTC)) == "january 2023"
    # relative dates resolve from the UTC day too: "yesterday" said then is 31 January
    assert resolve_dates("I went there yesterday", late) == ["31 January 2023"]


def test_question_ranges_include_the_last_half_second() -> None:
    span = time_range_of("What did Ann do in January 2023?")
    assert (span.start, span.end) == month_range(2023, 1)
    assert in_window(datetime(2023, 1, 31, 23, 59, 59, 500000, tzinfo=UTC), span.start, span.end)
    year = time_range_of("Where did she live in 2022?")
    assert (year.start, year.end) == year_range(2022)
    assert in_window(datetime(2022, 12, 31, 23, 59, 59, 500000, tzinfo=UTC), year.start, year.end)
    assert not in_window(datetime(2023, 1, 1, tzinfo=UTC), year.start, year.end)
    assert time_range_of("What did she do last week?") is None


@pytest.mark.parametrize("text", ["2023-01-01T00:00:00+25:00", "2023-01-01T00:00:00+18:00",
                                  "2023-01-01T00:00:00-18:00", "2023-01-01 00:00 -19:30",
                                  "Mon, 08 May 2023 13:56:00 +2500", "May 8, 2023 1:56 PM +1900"])
def test_offsets_out_of_range_are_refused_at_parse_time(text: str) -> None:
    with pytest.raises(InvalidInputError, match="offset") as caught:
        parse_timestamp(text, field="message timestamp")
    assert text in str(caught.value) and "message timestamp" in str(caught.value)


def test_offsets_in_range_parse_and_other_refusals_name_the_value() -> None:
    assert parse_timestamp("2023-01-01T00:00:00+14:00", field="t").utcoffset() == timedelta(hours=14)
    assert parse_timestamp("2023-01-01T00:00:00-17:59", field="t").utcoffset() == \
        -timedelta(hours=17, minutes=59)
    too_far = datetime(2023, 1, 1, tzinfo=timezone(timedelta(hours=20)))
    with pytest.raises(InvalidInputError, match=r"\+20:00"):
        parse_timestamp(too_far, field="t")
    with pytest.raises(InvalidInputError, match=r"offset \+20:00"):
        time_param(too_far)
    with pytest.raises(InvalidInputError, match=r"\+19:00"):
        parse_timestamp("2023-01-01T00:00:00", field="t", default_tz=timezone(timedelta(hours=19)))


def test_check_window_accepts_aware_times_and_text_and_returns_utc() -> None:
    since, until = check_window(datetime(2023, 1, 1, 5, tzinfo=timezone(timedelta(hours=5))),
                                "2023-01-02T00:00:00Z")
    assert since == datetime(2023, 1, 1, tzinfo=UTC) and since.tzinfo == UTC
    assert until == datetime(2023, 1, 2, tzinfo=UTC)
    assert check_window(None, None) == (None, None)
    assert check_window(None, "2023-01-01T00:00:00-05:00") == (None, datetime(2023, 1, 1, 5, tzinfo=UTC))
    assert window_params(since, None) == {"since": 1672531200000000, "until": None}
    assert epoch_us(datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC)) == -500000


@pytest.mark.parametrize(("since", "until", "named"), [
    (datetime(2023, 1, 1), None, "since '2023-01-01T00:00:00'"),
    (None, datetime(2023, 1, 1, 12), "until '2023-01-01T12:00:00'"),
    ("2023-01-01", None, "since '2023-01-01'"),
    (None, "yesterday", "until 'yesterday'"),
    (20230101, None, "since 20230101"),
    (datetime(2023, 1, 2, tzinfo=UTC), datetime(2023, 1, 1, tzinfo=UTC), "'2023-01-02T00:00:00+00:00'"),
    (datetime(2023, 1, 1, tzinfo=UTC), datetime(2023, 1, 1, tzinfo=UTC), "is not before until"),
    ("2023-01-01T00:00:00+25:00", None, "'2023-01-01T00:00:00+25:00'"),
])
def test_check_window_refuses_naive_empty_or_malformed_windows(since, until, named) -> None:
    with pytest.raises(InvalidInputError) as caught:
        check_window(since, until)
    assert named in str(caught.value)


def test_to_utc_refuses_naive_values() -> None:
    with pytest.raises(InvalidInputError, match="has no time zone"):
        to_utc(datetime(2023, 1, 1))
    with pytest.raises(InvalidInputError, match="has no time zone"):
        utc_day_range(datetime(2023, 1, 1))


def _cache() -> NamespaceVectors:
    rows = [("a", 1, [1.0, 0.0]), ("b", 1, [0.9, 0.1]), ("c", 1, [0.8, 0.2]), ("d", 1, [0.0, 1.0]),
            ("e", 1, [0.7, 0.3])]
    times = {"a": epoch_us(datetime(2023, 1, 1, tzinfo=UTC)),                       # outside
             "b": epoch_us(datetime(2022, 12, 31, 23, 59, 59, 500000, tzinfo=UTC)),  # inside
             "c": epoch_us(datetime(2022, 6, 1, tzinfo=UTC)),                        # inside
             "d": epoch_us(datetime(2022, 7, 1, tzinfo=UTC)),                        # inside
             "e": None}                                                              # no time
    return NamespaceVectors(2, rows, (1, 1), times=times)


def test_vector_cache_filters_by_time_before_the_top_k_cut() -> None:
    cache = _cache()
    query = np.array([1.0, 0.0])
    assert cache.top(query, 2)[0] == ["a", "b"]
    window = window_params(*year_range(2022))
    ids, sims = cache.top(query, 2, window["since"], window["until"])
    assert ids == ["b", "c"] and len(sims) == 2         # k items: the window holds 3
    assert cache.top(query, 10, window["since"], window["until"])[0] == ["b", "c", "d"]
    assert cache.top(query, 3, window["until"], None)[0] == ["a"]
    assert cache.top(query, 3, None, epoch_us(datetime(2022, 1, 1, tzinfo=UTC))) == ([], [])
    # an update keeps the times it is given; an entry without them refuses a window
    fresh = cache.updated(dict(cache.stamps), {}, (1, 2), times={"a": 0, "b": 0, "c": 5, "d": 0,
                                                                   "e": 0})
    assert fresh.top(query, 5, 1, 10)[0] == ["c"]
    blind = NamespaceVectors(2, [("a", 1, [1.0, 0.0])])
    assert not blind.has_times and blind.top(query, 1) == (["a"], [pytest.approx(1.0)])
    with pytest.raises(ValueError, match="no unit times"):
        blind.top(query, 1, 0, None)


class _Recorder:
    """A runner that answers the round query with no units and records its parameters."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def read(self, name: str, /, **params):
        self.calls.append((name, params))
        return []


def test_engine_sends_the_window_as_epoch_microseconds_and_checks_it() -> None:
    runner = _Recorder()
    since = datetime(2022, 12, 31, 19, tzinfo=timezone(timedelta(hours=-5)))   # 2023-01-01T00Z
    assert HybridSearch(runner, "Episode").search("ns", "what?", [1.0, 0.0], 3,
                                                  since=since) == []
    [(name, params)] = runner.calls
    assert name == "retrieval/search_units@Episode"
    assert params["since"] == 1672531200000000 and params["until"] is None
    HybridSearch(runner).search("ns", "what?", [1.0, 0.0], 3)
    assert runner.calls[-1][1]["since"] is None and runner.calls[-1][1]["until"] is None
    with pytest.raises(InvalidInputError, match="until '2023-01-01T00:00:00'"):
        HybridSearch(runner).search("ns", "what?", [1.0], 3, until=datetime(2023, 1, 1))


def test_retrievers_take_the_window_through_search_kwargs() -> None:
    from fake_runner import FakeRunner

    from graphmem.embeddings import HashingEmbedder
    from graphmem.facade import GraphMemory
    from graphmem.langchain.retrievers import CombinedGraphMemoryRetriever, StateRetriever

    mem = GraphMemory(FakeRunner(), HashingEmbedder(384), namespace="ns")
    retriever = StateRetriever(graph_memory=mem, search_kwargs={
        "k": 3, "since": "2022-12-31T19:00:00-05:00",
        "until": datetime(2023, 2, 1, tzinfo=UTC)})
    assert retriever.k == 3 and retriever.since == datetime(2023, 1, 1, tzinfo=UTC)
    assert retriever._window() == {"since": datetime(2023, 1, 1, tzinfo=UTC),
                                   "until": datetime(2023, 2, 1, tzinfo=UTC)}
    combined = CombinedGraphMemoryRetriever(graph_memory=mem, memories=("state", "insight"),
                                            search_kwargs={"until": datetime(2023, 1, 1, tzinfo=UTC)})
    assert [m._window() for m in combined.members()] == [
        {"since": None, "until": datetime(2023, 1, 1, tzinfo=UTC)}] * 2
    with pytest.raises(InvalidInputError, match="since '2023-01-01T00:00:00'"):
        StateRetriever(graph_memory=mem, search_kwargs={"since": datetime(2023, 1, 1)})
    with pytest.raises(InvalidInputError, match="is not before until"):
        StateRetriever(graph_memory=mem, since=datetime(2023, 1, 2, tzinfo=UTC),
                       until=datetime(2023, 1, 1, tzinfo=UTC))
    with pytest.raises(InvalidInputError, match="not in recall_kwargs"):
        StateRetriever(graph_memory=mem, recall_kwargs={"since": datetime(2023, 1, 1, tzinfo=UTC)})


def test_mcp_recall_tools_parse_the_window_with_timeparse() -> None:
    import asyncio

    from graphmem.mcp_server import build_server
    from graphmem.memory import RecallResult

    asked: list[tuple[str, dict]] = []

    class _Facade:
        namespace = "x"

        def __init__(self) -> None:
            self.state = self

        def recall(self, query, k, **options):
            asked.append((query, options))
            return RecallResult(memory="state", namespace="x", query=query)

        def close(self) -> None:
            pass

    server = build_server("x", opener=lambda ns: _Facade())

    async def run() -> None:
        await server.call_tool("recall", {"query": "q", "k": 2, "since": "2023-01-01T05:00:00+05:00",
                                          "until": "2023-01-02T00:00:00Z"})
        await server.call_tool("recall_state", {"query": "s", "until": "2023-01-01T00:00:00-05:00"})
        await server.call_tool("recall", {"query": "t", "as_of": "2023-03-01T01:00:00+01:00"})
        with pytest.raises(Exception, match="is after as_of"):
            await server.call_tool("recall", {"query": "q", "since": "2023-04-01T00:00:00Z",
                                              "as_of": "2023-03-01T00:00:00Z"})
        for args, named in (({"since": "2023-01-01T00:00:00"}, "since '2023-01-01T00:00:00'"),
                            ({"until": "2023-01-01T00:00:00+25:00"}, "+25:00"),
                            ({"since": "2023-01-02T00:00:00Z", "until": "2023-01-01T00:00:00Z"},
                             "is not before until")):
            with pytest.raises(Exception, match="InvalidInputError") as caught:
                await server.call_tool("recall", {"query": "q", **args})
            assert named in str(caught.value)

    asyncio.run(run())
    as_of = datetime(2023, 3, 1, tzinfo=UTC)
    live = {"include_archived": False}
    assert asked == [("q", {"since": datetime(2023, 1, 1, tzinfo=UTC),
                            "until": datetime(2023, 1, 2, tzinfo=UTC), "as_of": None, **live}),
                     ("s", {"since": None, "until": datetime(2023, 1, 1, 5, tzinfo=UTC),
                            "as_of": None, **live}),
                     ("t", {"since": None, "until": as_of + timedelta(microseconds=1),
                            "as_of": as_of, **live})]

"""since / until on the real Neo4j: messages at 23:59:59.5 on 31 December and 00:00:00 on 1 January
(UTC), written with other offsets, and at the end of January; every recall -- mem.recall, each
memory's recall, a retriever's search_kwargs, the MCP recall tools -- returns exactly the items of
the half-open window (the database scan and the vector cache alike), k of them when the window
holds k; a question's month range includes 23:59:59.5 on its last day; a message belongs to its
UTC month in both conversation memories."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest
from reliability import tq  # noqa: F401

from graphmem.experience.trajectories import Trajectory, TrajectoryStep
from graphmem.facade import GraphMemory
from graphmem.langchain.retrievers import AssociativeRetriever, InsightRetriever, StateRetriever
from graphmem.state.memory import time_range_of
from graphmem.timeparse import epoch_us, in_window

UTC = timezone.utc
EST = timezone(timedelta(hours=-5))
IST = timezone(timedelta(hours=5, minutes=30))
CET = timezone(timedelta(hours=1))

#: The messages: id -> (instant, the offset it is written with, text).
MESSAGES = {
    "m-dec": (datetime(2022, 12, 31, 23, 59, 59, 500000, tzinfo=UTC), EST,
              "I bought a red kayak for the lake."),
    "m-jan": (datetime(2023, 1, 1, 0, 0, 0, tzinfo=UTC), IST,
              "I bought a green canoe for the river."),
    "m-end": (datetime(2023, 1, 31, 23, 59, 59, 500000, tzinfo=UTC), CET,
              "I bought a yellow paddle board for the sea."),
    # 23:30 in New York on 31 January is 04:30 UTC on 1 February: a February message
    "m-feb": (datetime(2023, 1, 31, 23, 30, tzinfo=EST).astimezone(UTC), EST,
              "I bought a blue sailing dinghy for the bay."),
}
NEW_YEAR = datetime(2023, 1, 1, tzinfo=UTC)
FEBRUARY = datetime(2023, 2, 1, tzinfo=UTC)
#: (since, until) -> the messages inside; bounds written with offsets other than UTC.
WINDOWS = {
    (None, datetime(2022, 12, 31, 19, 0, tzinfo=EST)): {"m-dec"},
    (datetime(2023, 1, 1, 5, 30, tzinfo=IST), datetime(2023, 2, 1, 1, 0, tzinfo=CET)): {"m-jan", "m-end"},
    (FEBRUARY, None): {"m-feb"},
    (datetime(2022, 12, 31, 23, 59, 59, 500000, tzinfo=UTC), NEW_YEAR + timedelta(microseconds=1)):
        {"m-dec", "m-jan"},
}
QUESTION = "What boat did I buy?"


def _expected(since: datetime | None, until: datetime | None) -> set[str]:
    return {mid for mid, (at, _, _) in MESSAGES.items() if in_window(at, since, until)}


def _as_time(value) -> datetime:
    if isinstance(value, str):
        return datetime.fromisoformat(value)
    return value.to_native() if hasattr(value, "to_native") else value


@pytest.fixture
def stored(runner, embedder, namespace, tq) -> tuple[GraphMemory, dict[str, str]]:  # noqa: F811
    """The facade over the namespace holding the messages, and the message of each insight
    and task node id."""
    facade = GraphMemory(runner, embedder, namespace)
    nodes: dict[str, str] = {}
    facade.add([{"id": mid, "role": "Ann", "content": text,
                 "timestamp": at.astimezone(zone).isoformat()}
                for mid, (at, zone, text) in MESSAGES.items()], conversation_id="boats")
    # insight and experience: one insight and one task per message, recorded at its time
    for mid, (at, zone, text) in MESSAGES.items():
        query_id = facade.insight.add_query(f"Which shop sold this: {text}", "resolved",
                                            [f"search[{mid}]"])
        insight_id = facade.insight.add_insight(f"Ask the shop about the receipt of {mid}.",
                                                [query_id])
        facade.experience.ingest([Trajectory(
            task_id=f"task-{mid}", query=f"Find the receipt: {text}",
            steps=[TrajectoryStep(action=f"search[{mid}]", observation="found"),
                   TrajectoryStep(action="open[receipt]", observation="done")],
            reward=1.0)])
        task_id = next(r["id"] for r in tq.read("read_nodes", namespace=namespace, label="Task")
                       if r["props"]["task_key"] == f"task-{mid}")
        for node in (insight_id, task_id):
            [row] = tq.write("set_created_at", namespace=namespace, id=node,
                             at=at.astimezone(zone).isoformat())
            assert row["changed"] == 1
        nodes.update({insight_id: mid, task_id: mid})
    return facade, nodes


def _message_ids(items) -> set[str]:
    return {sid for item in items for sid in item.source_ids if sid in MESSAGES}


def test_conversation_memories_return_exactly_the_window(stored) -> None:
    mem, _ = stored
    modes: set[str] = set()
    for (since, until), inside in WINDOWS.items():
        assert _expected(since, until) == inside
        for _ in range(3):  # the first recalls scan the database, later ones the vector cache
            state = mem.state.recall(QUESTION, k=10, since=since, until=until)
            modes.add(state.rounds[0].details["dense_mode"])
            assert _message_ids(state.items) == inside
            for item in state.items:
                at = item.occurred_at if item.kind == "event" else item.valid_from
                assert in_window(_as_time(at), since, until), item
            assoc = mem.associative.recall(QUESTION, k=10, since=since, until=until)
            assert _message_ids(assoc.items) == inside
            assert all(in_window(_as_time(i.occurred_at), since, until) for i in assoc.items)
    assert {"exact", "cache"} <= modes
    # k items when the window holds k, even when better matches lie outside it
    for recall in (mem.state.recall, mem.associative.recall):
        top = recall("Did I buy a red kayak for the lake?", k=1, since=NEW_YEAR)
        assert len(top.items) == 1 and _message_ids(top.items) <= {"m-jan", "m-end", "m-feb"}
        pair = recall(QUESTION, k=2, since=NEW_YEAR, until=FEBRUARY)
        assert len(pair.items) == 2 and _message_ids(pair.items) == {"m-jan", "m-end"}


def test_insight_and_experience_return_exactly_the_window(stored) -> None:
    mem, nodes = stored
    for (since, until), inside in WINDOWS.items():
        insights = mem.insight.recall("Which shop sold the boat?", k=10, since=since, until=until)
        assert {nodes[i.id] for i in insights.items} == inside
        tasks = mem.experience.recall("Find the receipt of the boat", k=10, since=since,
                                      until=until)
        assert {nodes[i.id] for i in tasks.items} == inside
        for item in tasks.items:  # cross-task insights come from tasks of the window too
            assert all(c.neighbour_id in nodes and nodes[c.neighbour_id] in inside
                       for c in item.cross)
    pair = mem.experience.recall("Did I buy a red kayak for the lake?", k=2, since=NEW_YEAR)
    assert len(pair.items) == 2 and {nodes[i.id] for i in pair.items} <= {"m-jan", "m-end", "m-feb"}


def test_fused_recall_retrievers_and_mcp_tools_pass_the_window(stored) -> None:
    mem, nodes = stored
    since, until = datetime(2023, 1, 1, 5, 30, tzinfo=IST), datetime(2023, 2, 1, 1, 0, tzinfo=CET)
    inside = {"m-jan", "m-end"}
    fused = mem.recall(QUESTION, k=10, memories=["state", "associative"], since=since, until=until)
    assert _message_ids(fused.items) == inside
    learned = mem.recall("Which shop sold the boat?", k=10, memories=["insight", "experience"],
                         since=since, until=until)
    assert {nodes[i.id] for i in learned.items} == inside and len(learned.items) == 4
    for cls in (StateRetriever, AssociativeRetriever):
        docs = cls(graph_memory=mem, search_kwargs={"k": 10, "since": since, "until": until}
                   ).invoke(QUESTION)
        assert {d for doc in docs for d in doc.metadata["source_ids"] if d in MESSAGES} == inside
    docs = InsightRetriever(graph_memory=mem, search_kwargs={
        "k": 10, "since": "2022-12-31T19:00:00-05:00", "until": "2023-02-01T01:00:00+01:00"}
    ).invoke("Which shop sold the boat?")
    assert {nodes[doc.id] for doc in docs} == inside

    from graphmem.mcp_server import build_server

    server = build_server(mem.namespace, opener=lambda ns: mem)

    async def ask(tool: str, **args) -> dict:
        result = await server.call_tool(tool, {"query": QUESTION, "k": 10, **args})
        return getattr(result, "structured_content", None) or result[1]

    out = asyncio.run(ask("recall", since="2023-01-01T05:30:00+05:30",
                          until="2023-02-01T01:00:00+01:00"))
    assert {s for item in out["items"] for s in item["source_ids"] if s in MESSAGES} == inside
    out = asyncio.run(ask("recall_state", until="2022-12-31T19:00:00-05:00"))
    assert {s for item in out["items"] for s in item["source_ids"] if s in MESSAGES} == {"m-dec"}


def test_question_ranges_and_time_cues_use_utc_months(stored, tq) -> None:  # noqa: F811
    mem, _ = stored
    namespace = mem.namespace
    events = {r["props"]["source_ids"][0]: r["id"]
              for r in tq.read("read_nodes", namespace=namespace, label="Event")}
    assert set(events) == set(MESSAGES)
    january = time_range_of("What did I buy in January 2023?")
    found = mem.runner.read("state/events_in_span", namespace=namespace,
                            event_ids=sorted(events.values()), start=epoch_us(january.start),
                            end=epoch_us(january.end))
    by_event = {v: k for k, v in events.items()}
    assert {by_event[r["id"]] for r in found} == {"m-jan", "m-end"}
    year = time_range_of("What did I buy in 2022?")
    found = mem.runner.read("state/events_in_span", namespace=namespace,
                            event_ids=sorted(events.values()), start=epoch_us(year.start),
                            end=epoch_us(year.end))
    assert {by_event[r["id"]] for r in found} == {"m-dec"}
    # the time_range round of a recall lifts exactly those events
    result = mem.state.recall("When in January 2023 did I buy a boat?", k=10, max_rounds=2)
    [ranged] = [r for r in result.rounds if r.action == "time_range"]
    assert ranged.details["in_range"] == 2
    # associative time cues: each episode is linked to its UTC month (the +01:00 message of
    # 00:59:59.5 on 1 February is January's, the -05:00 one of 23:30 on 31 January February's)
    cues = {r["id"]: r["props"]["text"] for r in tq.read("read_nodes", namespace=namespace,
                                                         label="Cue")}
    episodes = {r["id"]: r["props"]["source_id"]
                for r in tq.read("read_nodes", namespace=namespace, label="Episode")}
    edges = tq.read("read_relationships", namespace=namespace)
    tags = {}
    for e in edges:
        if e["type"] == "HAS_TAG" and e["source"] in cues:
            tags.setdefault(e["target"], set()).add(cues[e["source"]])
    months = {"december 2022", "january 2023", "february 2023"}
    linked: dict[str, set[str]] = {}
    for e in edges:
        if e["type"] == "LEADS_TO" and e["target"] in episodes:
            linked.setdefault(episodes[e["target"]], set()).update(
                tags.get(e["source"], set()) & months)
    assert linked == {"m-dec": {"december 2022"}, "m-jan": {"january 2023"},
                      "m-end": {"january 2023"}, "m-feb": {"february 2023"}}

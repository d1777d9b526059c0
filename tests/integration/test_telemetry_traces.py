"""Traces and metrics of the agent verbs on the real Neo4j (graphmem.telemetry), with the
OpenTelemetry SDK's in-memory exporter and metric reader passed in through
``telemetry.configure`` for this module.

A real ``mem.add``, ``mem.recall``, a memory's own recall, ``mem.feedback`` and ``mem.forget``
on a fresh namespace: each verb's span holds its memories' spans and they hold the database
round trips, in one trace; the attribute values equal what the verbs returned; and no
attribute or event anywhere holds a message text, the question, the task or an id.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

from graphmem import telemetry  # noqa: E402
from graphmem.facade import GraphMemory  # noqa: E402

MESSAGES = [
    {"role": "Caroline", "id": "msg-caroline-0001", "timestamp": "2023-05-07T13:56:00+00:00",
     "content": "I went to the LGBTQ support group yesterday and it was so powerful."},
    {"role": "Melanie", "id": "msg-melanie-0002", "timestamp": "2023-05-07T13:58:00+00:00",
     "content": "That's wonderful! I painted a sunrise over the lake last week."},
    {"role": "Caroline", "id": "msg-caroline-0003", "timestamp": "2023-05-07T14:01:00+00:00",
     "content": "I'm researching adoption agencies; I want to give a child a loving home."},
    {"role": "Melanie", "id": "msg-melanie-0004", "timestamp": "2023-05-07T14:03:00+00:00",
     "content": "My kids loved the camping trip to the mountains in June."},
]
QUESTION = "When did Caroline go to the LGBTQ support group?"
TASK = "Water the tomato seedlings in the greenhouse"
ACTIONS = ["look around the greenhouse", "fill the watering can", "water the seedlings"]


@pytest.fixture(scope="module")
def otel() -> Iterator[tuple[InMemorySpanExporter, InMemoryMetricReader]]:
    exporter, reader = InMemorySpanExporter(), InMemoryMetricReader()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.configure(provider, MeterProvider(metric_readers=[reader]))
    try:
        yield exporter, reader
    finally:
        telemetry.configure()


def _children(spans: list[Any], parent: Any, name: str | None = None) -> list[Any]:
    return [s for s in spans if s.parent is not None
            and s.parent.span_id == parent.context.span_id and name in (None, s.name)]


def _descendants(spans: list[Any], parent: Any) -> list[Any]:
    out = []
    for child in _children(spans, parent):
        out += [child, *_descendants(spans, child)]
    return out


def _one(spans: list[Any], name: str, **attributes: Any) -> Any:
    [span] = [s for s in spans if s.name == name and all(
        s.attributes.get(f"graphmem.{k}") == v for k, v in attributes.items())]
    return span


def _texts_absent(spans: list[Any]) -> None:
    secrets = [QUESTION, TASK, *ACTIONS, *(m["content"] for m in MESSAGES),
               *(m["id"] for m in MESSAGES), "LGBTQ", "adoption", "seedlings"]
    for span in spans:
        values = [span.name, *span.attributes.values(), span.status.description or "",
                  *(v for e in span.events for v in [e.name, *e.attributes.values()])]
        for value in values:
            for secret in secrets:
                assert secret.lower() not in str(value).lower(), (span.name, value, secret)


def test_agent_verbs_trace_their_memories_and_database_calls(runner, embedder, namespace,
                                                             otel) -> None:
    exporter, reader = otel
    exporter.clear()
    mem = GraphMemory(runner, embedder, namespace)
    everything: list[Any] = []

    # add: one span, an ingest span per memory, the writes below them
    reports = mem.add(MESSAGES, conversation_id="chat-1")
    spans = list(exporter.get_finished_spans())
    everything += spans
    add = _one(spans, "graphmem.add")
    assert add.parent is None and add.attributes["graphmem.namespace"] == namespace
    assert add.attributes["graphmem.messages"] == len(MESSAGES)
    assert tuple(add.attributes["graphmem.memories"]) == ("state", "associative")
    assert add.attributes["graphmem.created"] == sum(
        sum(r.created.values()) for r in reports.values())
    ingests = _children(spans, add, "graphmem.ingest")
    assert sorted(s.attributes["graphmem.memory"] for s in ingests) == ["associative", "state"]
    for span in ingests:
        report = reports[span.attributes["graphmem.memory"]]
        assert span.attributes["graphmem.inputs"] == report.inputs == len(MESSAGES)
        assert span.attributes["graphmem.created"] == sum(report.created.values()) > 0
        assert span.attributes["graphmem.skipped"] == 0
        assert span.attributes["graphmem.seconds"] == report.seconds
        writes = [s for s in _descendants(spans, span) if s.name == "graphmem.db"
                  and s.attributes["graphmem.db.mode"] == "write"]
        assert writes and span.attributes["graphmem.db_ms"] > 0
        assert span.attributes["graphmem.embed_ms"] > 0  # the encoder thread's time counts
        assert span.attributes["graphmem.db_queries"] == len(
            [s for s in _descendants(spans, span) if s.name == "graphmem.db"])
    assert {s.context.trace_id for s in spans if s.name != "graphmem.db" or s.parent} == {
        add.context.trace_id}

    # the fused recall: memory recalls below it (worker threads), database calls below those
    exporter.clear()
    result = mem.recall(QUESTION, k=3)
    spans = list(exporter.get_finished_spans())
    everything += spans
    fused = _one(spans, "graphmem.recall", memory="fused")
    assert fused.parent is None
    assert fused.attributes["graphmem.k"] == 3
    assert fused.attributes["graphmem.items"] == len(result.items) == 3
    assert fused.attributes["graphmem.rounds"] == len(result.rounds) == 2
    assert fused.attributes["graphmem.llm_calls"] == result.llm_usage.calls == 0
    assert fused.attributes["graphmem.db_ms"] > 0 and fused.attributes["graphmem.embed_ms"] > 0
    below = _descendants(spans, fused)
    assert fused.attributes["graphmem.db_queries"] == len(
        [s for s in below if s.name == "graphmem.db"])
    recalls = _children(spans, fused, "graphmem.recall")
    assert sorted(s.attributes["graphmem.memory"] for s in recalls) == ["associative", "state"]
    for span in recalls:
        [round_] = [r for r in result.rounds
                    if r.action == f"recall:{span.attributes['graphmem.memory']}"]
        assert span.attributes["graphmem.k"] == 9  # FETCH_FACTOR * k
        assert span.attributes["graphmem.items"] == round_.details["items"] > 0
        assert span.attributes["graphmem.namespace"] == namespace
        reads = _children(spans, span, "graphmem.db")
        assert reads and all(s.attributes["graphmem.db.mode"] == "read" for s in reads)
        assert all(s.attributes["graphmem.db.query"] in runner.registry for s in reads)
        assert all(s.attributes["db.system.name"] == "neo4j" for s in reads)
        assert sum(s.attributes["graphmem.db.rows"] for s in reads) > 0
    assert {s.context.trace_id for s in below} == {fused.context.trace_id}

    # a memory's own recall (as the CLI, the retrievers and MCP call it)
    exporter.clear()
    state = mem.state.recall(QUESTION, k=2)
    spans = list(exporter.get_finished_spans())
    everything += spans
    own = _one(spans, "graphmem.recall", memory="state")
    assert own.parent is None and own.attributes["graphmem.k"] == 2
    assert own.attributes["graphmem.items"] == len(state.items) == 2
    assert own.attributes["graphmem.rounds"] == len(state.rounds)
    assert _children(spans, own, "graphmem.db")

    # feedback: insight memory recalls for the task, experience memory ingests the trajectory
    exporter.clear()
    feedback = mem.feedback(TASK, "resolved", trajectory=ACTIONS)
    spans = list(exporter.get_finished_spans())
    everything += spans
    fb = _one(spans, "graphmem.feedback")
    assert fb.attributes["graphmem.status"] == "resolved" and fb.attributes["graphmem.trajectory"]
    assert fb.attributes["graphmem.decisions"] == len(feedback.insight.decisions)
    assert fb.attributes["graphmem.created"] == sum(feedback.insight.created.values()) + sum(
        feedback.experience.created.values())
    below = _descendants(spans, fb)
    assert _one(below, "graphmem.recall", memory="insight")
    assert _one(below, "graphmem.ingest", memory="experience").attributes[
        "graphmem.inputs"] == feedback.experience.inputs == 1

    # forget one message: the rebuild's ingest spans and the deletes below the forget span
    exporter.clear()
    report = mem.forget(message_ids=[MESSAGES[2]["id"]], actor="auditor")
    spans = list(exporter.get_finished_spans())
    everything += spans
    forget = _one(spans, "graphmem.forget")
    assert forget.attributes["graphmem.messages"] == report.messages == 1
    assert forget.attributes["graphmem.conversations"] == len(report.conversations) == 1
    assert forget.attributes["graphmem.nodes_removed"] == sum(report.nodes.values()) > 0
    assert forget.attributes["graphmem.dry_run"] is False
    below = _descendants(spans, forget)
    assert sorted(s.attributes["graphmem.memory"] for s in below
                  if s.name == "graphmem.ingest") == ["associative", "state"]
    queries = {s.attributes["graphmem.db.query"] for s in below if s.name == "graphmem.db"}
    assert {"state/delete_conversations", "associative/delete_conversations",
            "core/record_audit"} <= queries

    _texts_absent(everything)

    points: dict[str, list[Any]] = {}
    data = reader.get_metrics_data()
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                points[metric.name] = [p for p in metric.data.data_points
                                       if p.attributes.get("graphmem.namespace") in
                                       (namespace, None)]
    recalled = {p.attributes["graphmem.memory"]: p.value for p in points["graphmem.recalls"]}
    assert recalled == {"fused": 1, "state": 2, "associative": 1, "insight": 1}
    ingested = {p.attributes["graphmem.memory"]: p.value
                for p in points["graphmem.ingested_inputs"]}
    assert ingested == {"state": len(MESSAGES) + 3, "associative": len(MESSAGES) + 3,
                        "experience": 1}
    assert {p.attributes["graphmem.db.query"] for p in points["graphmem.db.queries"]} >= {
        "state/delete_conversations", "core/record_audit"}
    assert all(p.sum > 0 for p in points["graphmem.recall.duration"])

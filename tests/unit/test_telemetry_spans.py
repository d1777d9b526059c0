"""Traces and metrics with the OpenTelemetry SDK (graphmem.telemetry), no database: a real
:class:`~graphmem.graph.runner.QueryRunner` on a driver double that answers the toy ``note``
memory's queries, the SDK's in-memory span exporter and metric reader passed in through
``telemetry.configure``. Checks the span tree (fused recall > memory recall > database round
trip, across the recall worker threads), every attribute value, that no attribute or event
holds query or content text, and the metrics' values and attributes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from neo4j import exceptions as ne  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import StatusCode  # noqa: E402
from toy_memory import TEST_CYPHER, NoteMemory, note_registered  # noqa: E402

from graphmem import telemetry  # noqa: E402
from graphmem.embeddings import HashingEmbedder  # noqa: E402
from graphmem.errors import GraphmemError  # noqa: E402
from graphmem.facade import GraphMemory  # noqa: E402
from graphmem.graph.registry import CypherRegistry  # noqa: E402
from graphmem.graph.runner import QueryRunner  # noqa: E402
from graphmem.llm import LLMUsage  # noqa: E402
from graphmem.memory import MemorySpec, RecallResult, register_memory  # noqa: E402
from graphmem.parallel import run_all  # noqa: E402

SECRET = "Caroline's secret adoption plans"
REGISTRY = CypherRegistry.load(extra=[TEST_CYPHER])
DEADLOCK = "Neo.TransientError.Transaction.DeadlockDetected"


class _Record(dict):
    def data(self) -> dict[str, Any]:
        return dict(self)


class _Tx:
    def __init__(self, driver: NoteDriver):
        self.driver = driver

    def run(self, text: str, params: dict[str, Any]) -> list[_Record]:
        name = self.driver.names[text]
        if self.driver.fail_next:
            self.driver.fail_next -= 1
            raise ne.Neo4jError._hydrate_neo4j(code=DEADLOCK, message="deadlock detected")
        if self.driver.syntax_error:
            raise ne.Neo4jError._hydrate_neo4j(code="Neo.ClientError.Statement.SyntaxError",
                                               message=f"Invalid input {params.get('text')!r}")
        notes = self.driver.notes
        if name == "note/write_notes":
            new = [r for r in params["rows"] if r["id"] not in notes]
            notes.update({r["id"]: (params["namespace"], r["text"]) for r in new})
            return [_Record(created=len(new))]
        if name == "note/recall_notes":
            rows = [_Record(id=i, text=t, score=1.0 if params["text"] in t else 0.5)
                    for i, (ns, t) in sorted(notes.items()) if ns == params["namespace"]]
            return sorted(rows, key=lambda r: -r["score"])[:params["k"]]
        if name == "note/count_notes":
            return [_Record(nodes=sum(ns == params["namespace"] for ns, _ in notes.values()))]
        return []


class _Session:
    def __init__(self, driver: NoteDriver):
        self.driver = driver

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def _execute(self, fn: Any) -> Any:
        while True:  # like the driver: a retryable error runs the function again
            try:
                return fn(_Tx(self.driver))
            except ne.Neo4jError as exc:
                if not exc.is_retryable():
                    raise

    execute_read = execute_write = _execute


class NoteDriver:
    """A neo4j driver double: answers the note queries from a dict, by query text."""

    def __init__(self) -> None:
        self.names = {REGISTRY.get(n).text: n for n in REGISTRY.names()}
        self.notes: dict[str, tuple[str, str]] = {}
        self.fail_next = 0
        self.syntax_error = False

    def session(self, **config: Any) -> _Session:
        return _Session(self)


class RelayMemory(NoteMemory):
    """A memory whose recall embeds the question and asks another memory (note)."""

    name = "relay"

    def recall(self, query: str, k: int = 10) -> RecallResult:
        self.embedder.embed_query(query)
        inner = NoteMemory(self.runner, self.embedder, self.namespace).recall(query, k=k)
        return RecallResult(memory=self.name, namespace=self.namespace, query=query,
                            items=[i.model_copy(update={"memory": self.name})
                                   for i in inner.items])


class ExtendedNote(NoteMemory):
    """A subclass overriding recall and calling the parent's: one span, not two."""

    def recall(self, query: str, k: int = 10, **options: Any) -> RecallResult:
        return super().recall(query, k=k, **options)


@pytest.fixture
def otel() -> Iterator[tuple[InMemorySpanExporter, InMemoryMetricReader]]:
    exporter, reader = InMemorySpanExporter(), InMemoryMetricReader()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.configure(tracer_provider, MeterProvider(metric_readers=[reader]))
    try:
        yield exporter, reader
    finally:
        telemetry.configure()


@pytest.fixture
def mem() -> Iterator[GraphMemory]:
    spec = MemorySpec("relay", "test_telemetry_spans:RelayMemory", ("Relay",), "test relay")
    with note_registered():
        register_memory(spec)
        try:
            runner = QueryRunner(NoteDriver(), REGISTRY)  # type: ignore[arg-type]
            mem = GraphMemory(runner, HashingEmbedder(384), namespace="team-a")
            mem._memories["relay"] = RelayMemory(runner, mem.embedder, "team-a")
            yield mem
        finally:
            from graphmem.memory import MEMORY_REGISTRY

            MEMORY_REGISTRY.pop("relay", None)


def _spans(exporter: InMemorySpanExporter) -> list[Any]:
    return list(exporter.get_finished_spans())


def _children(spans: list[Any], parent: Any, name: str | None = None) -> list[Any]:
    return [s for s in spans if s.parent is not None
            and s.parent.span_id == parent.context.span_id and name in (None, s.name)]


def _no_text(spans: list[Any], *texts: str) -> None:
    for s in spans:
        values = [*s.attributes.values(), s.status.description or "",
                  *(v for e in s.events for v in [e.name, *e.attributes.values()])]
        for value in values:
            for text in texts:
                assert text.lower() not in str(value).lower(), (s.name, value)


def _points(reader: InMemoryMetricReader) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    data = reader.get_metrics_data()
    for resource in data.resource_metrics if data else []:
        for scope in resource.scope_metrics:
            assert scope.scope.name == "graphmem"
            for metric in scope.metrics:
                out[metric.name] = list(metric.data.data_points)
    return out


def _point(points: list[Any], **attributes: Any) -> Any:
    [match] = [p for p in points if all(p.attributes.get(k) == v
                                        for k, v in attributes.items())]
    return match


def test_fused_recall_nests_memory_recalls_and_database_calls(otel, mem) -> None:
    exporter, reader = otel
    mem.note.ingest([SECRET, "Melanie paints sunsets"])
    exporter.clear()

    result = mem.recall(SECRET, k=2, memories=["note", "relay"])

    spans = _spans(exporter)
    [fused] = [s for s in spans if s.attributes.get("graphmem.memory") == "fused"]
    assert fused.name == "graphmem.recall" and fused.parent is None
    assert dict(fused.attributes) | {"graphmem.db_ms": 0, "graphmem.embed_ms": 0} == {
        "graphmem.namespace": "team-a", "graphmem.memory": "fused", "graphmem.k": 2,
        "graphmem.items": len(result.items), "graphmem.rounds": 2, "graphmem.llm_calls": 0,
        "graphmem.llm_tokens": 0, "graphmem.db_queries": 2, "graphmem.db_ms": 0,
        "graphmem.embed_ms": 0}
    assert len(result.items) == 2 and fused.attributes["graphmem.db_ms"] > 0
    assert fused.attributes["graphmem.embed_ms"] > 0  # the question, embedded once up front
    recalls = _children(spans, fused, "graphmem.recall")
    assert sorted(s.attributes["graphmem.memory"] for s in recalls) == ["note", "relay"]
    by_memory = {s.attributes["graphmem.memory"]: s for s in recalls}
    note, relay = by_memory["note"], by_memory["relay"]
    assert note.attributes["graphmem.k"] == relay.attributes["graphmem.k"] == 6  # 3 k each
    assert note.attributes["graphmem.items"] == relay.attributes["graphmem.items"] == 2
    # relay runs in a worker thread, its spans still below the fused one; its own recall of
    # note memory is a span of its own, below relay's
    [inner] = _children(spans, relay, "graphmem.recall")
    assert inner.attributes["graphmem.memory"] == "note" and inner.attributes["graphmem.k"] == 6
    for span in (note, inner):
        [db] = _children(spans, span, "graphmem.db")
        assert dict(db.attributes) | {"graphmem.db.rows": 0} == {
            "graphmem.db.query": "note/recall_notes", "graphmem.db.mode": "read",
            "db.system.name": "neo4j", "db.namespace": "neo4j", "graphmem.db.rows": 0,
            "graphmem.db.retries": 0}
        assert db.attributes["graphmem.db.rows"] == 2 and db.kind.name == "CLIENT"
        assert span.attributes["graphmem.db_queries"] == 1
    assert relay.attributes["graphmem.db_queries"] == 1  # its inner recall's, rolled up
    assert relay.attributes["graphmem.embed_ms"] == 0.0  # the question's vector was cached
    assert {s.context.trace_id for s in spans} == {fused.context.trace_id}
    _no_text(spans, SECRET, "adoption", "Melanie")

    points = _points(reader)
    assert _point(points["graphmem.recalls"], **{"graphmem.memory": "fused"}).value == 1
    assert _point(points["graphmem.recalls"], **{"graphmem.memory": "note"}).value == 2
    assert _point(points["graphmem.recalls"], **{"graphmem.memory": "relay"}).value == 1
    assert _point(points["graphmem.recall.duration"], **{"graphmem.memory": "fused"}).count == 1
    recall_queries = _point(points["graphmem.db.queries"],
                            **{"graphmem.db.query": "note/recall_notes"})
    assert recall_queries.value == 2 and recall_queries.attributes == {
        "graphmem.db.query": "note/recall_notes", "graphmem.db.mode": "read"}
    for name, series in points.items():
        for p in series:
            assert set(p.attributes) <= {"graphmem.namespace", "graphmem.memory",
                                         "graphmem.db.query", "graphmem.db.mode", "error.type",
                                         "graphmem.llm.operation",
                                         "graphmem.llm.token_type"}, name


def test_ingest_span_and_metrics(otel, mem) -> None:
    exporter, reader = otel
    report = mem.note.ingest([SECRET, "Melanie paints sunsets"])
    again = mem.note.ingest([SECRET])

    first, second = [s for s in _spans(exporter) if s.name == "graphmem.ingest"]
    assert report.created == {"Note": 2} and again.created == {}
    assert {k: v for k, v in first.attributes.items() if not k.endswith("_ms")} == {
        "graphmem.namespace": "team-a", "graphmem.memory": "note", "graphmem.inputs": 2,
        "graphmem.created": 2, "graphmem.skipped": 0, "graphmem.seconds": report.seconds,
        "graphmem.llm_calls": 0, "graphmem.llm_tokens": 0, "graphmem.db_queries": 1}
    assert second.attributes["graphmem.created"] == 0
    [db] = _children(_spans(exporter), first, "graphmem.db")
    assert db.attributes["graphmem.db.query"] == "note/write_notes"
    assert db.attributes["graphmem.db.mode"] == "write" and db.attributes["graphmem.db.rows"] == 1
    _no_text(_spans(exporter), SECRET, "Melanie")
    points = _points(reader)
    assert _point(points["graphmem.ingested_inputs"], **{"graphmem.memory": "note"}).value == 3
    duration = _point(points["graphmem.ingest.duration"], **{"graphmem.memory": "note"})
    assert duration.count == 2 and duration.sum > 0


def test_an_overriding_recall_calling_super_is_one_span(otel, mem) -> None:
    exporter, _ = otel
    memory = ExtendedNote(mem.runner, mem.embedder, "team-a")
    memory.recall("anything", k=4)
    recalls = [s for s in _spans(exporter) if s.name == "graphmem.recall"]
    assert len(recalls) == 1 and recalls[0].attributes["graphmem.k"] == 4


def test_a_retried_transaction_counts_its_retries_and_the_last_attempts_rows(otel, mem) -> None:
    exporter, _ = otel
    mem.note.ingest([SECRET])
    mem.runner.driver.fail_next = 1
    mem.note.recall("x", k=3)
    [db] = [s for s in _spans(exporter) if s.attributes.get("graphmem.db.query")
            == "note/recall_notes"]
    assert db.attributes["graphmem.db.retries"] == 1 and db.attributes["graphmem.db.rows"] == 1


def test_a_failure_gives_its_class_never_its_message(otel, mem) -> None:
    exporter, reader = otel
    mem.runner.driver.syntax_error = True
    with pytest.raises(GraphmemError) as caught:
        mem.note.recall(SECRET, k=3)
    assert SECRET in str(caught.value)  # the message quotes the input ...
    spans = [s for s in _spans(exporter) if s.attributes.get("graphmem.db.query")
             != "core/list_vector_indexes"]
    db, recall = spans  # ... no span does
    error = f"{type(caught.value).__module__}.{type(caught.value).__qualname__}"
    for span in (db, recall):
        assert span.status.status_code is StatusCode.ERROR
        assert span.attributes["error.type"] == error and not span.events
        assert span.status.description == type(caught.value).__name__
    _no_text(spans, SECRET)
    points = _points(reader)
    assert _point(points["graphmem.recalls"], **{"error.type": error}).value == 1
    assert _point(points["graphmem.db.duration"], **{"error.type": error}).count == 1


def test_llm_accounting_feeds_the_llm_metrics(otel, mem) -> None:
    _, reader = otel
    usage = LLMUsage()
    usage.record("note.extract", input_tokens=120, output_tokens=30)
    usage.record("note.extract", input_tokens=80, output_tokens=0)
    mem.note._account(usage)
    points = _points(reader)
    base = {"graphmem.namespace": "team-a", "graphmem.memory": "note",
            "graphmem.llm.operation": "note.extract"}
    assert _point(points["graphmem.llm.calls"], **base).value == 2
    assert _point(points["graphmem.llm.tokens"], **base,
                  **{"graphmem.llm.token_type": "input"}).value == 200
    assert _point(points["graphmem.llm.tokens"], **base,
                  **{"graphmem.llm.token_type": "output"}).value == 30


def test_run_all_runs_each_call_under_the_callers_span(otel) -> None:
    exporter, _ = otel

    def child(name: str) -> str:
        with telemetry.span(name, size=1):
            return name

    with telemetry.span("outer", memory="x") as outer:
        assert outer.recording
        assert run_all([lambda: child("a"), lambda: child("b"), lambda: child("c")]) == [
            "a", "b", "c"]
    spans = _spans(exporter)
    [root] = [s for s in spans if s.name == "outer"]
    assert root.attributes == {"graphmem.memory": "x"}
    assert sorted(s.name for s in _children(spans, root)) == ["a", "b", "c"]
    assert all(s.attributes == {"graphmem.size": 1} for s in _children(spans, root))


def test_the_api_without_an_sdk_records_nothing_and_costs_little(mem) -> None:
    from opentelemetry import metrics, trace

    telemetry.configure(trace.NoOpTracerProvider(), metrics.NoOpMeterProvider())
    try:
        with telemetry.span("graphmem.test", k=1) as span:
            assert not span.recording
            span.set(items=3)
        mem.note.ingest([SECRET])
        assert [i.text for i in mem.recall("secret", k=1, memories=["note"]).items] == [SECRET]
        telemetry.counter("graphmem.recalls").add(1)
        telemetry.histogram("graphmem.recall.duration").record(1.0)
    finally:
        telemetry.configure()
    with pytest.raises(KeyError):
        telemetry.counter("graphmem.recall.duration")

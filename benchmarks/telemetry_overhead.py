"""Cost of graphmem's OpenTelemetry instrumentation (graphmem.telemetry); prints one JSON object.

    python benchmarks/telemetry_overhead.py --turns 60 --rounds 15

Three modes:

* ``absent``: the ``opentelemetry`` package hidden (``sys.modules["opentelemetry"] = None``):
  graphmem's own no-ops;
* ``api_no_sdk``: the API installed, no SDK configured (the global no-op providers): what an
  application that never turns telemetry on pays;
* ``sdk``: the SDK's ``TracerProvider`` with a ``SimpleSpanProcessor`` into an
  ``InMemorySpanExporter`` and a ``MeterProvider`` with an ``InMemoryMetricReader``.

Measures the median microseconds of one ``telemetry.span()`` (enter, ``set``, exit) and of one
``graphmem.db``-style span with its metrics, per mode (medians over batches of ``--calls``); and
the recall p50 / p90 in ms of ``mem.recall(question, k=5)`` (the fused recall over state and
associative memory) over a small namespace (the first ``--turns`` turns of the bundled LoCoMo
conv-26 and its questions), each question asked in every mode in turn (the order rotating) so
drift hits the modes alike, plus the spans one recall makes (median). Runs on the configured Neo4j (``NEO4J_URI``, else the local
launcher) in a fresh namespace, deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

from graphmem import telemetry

MODES = ("absent", "api_no_sdk", "sdk")


class Modes:
    """Switches graphmem's telemetry between :data:`MODES` (``telemetry.configure``)."""

    def __init__(self) -> None:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
        self._saved = sys.modules.get("opentelemetry")

    def use(self, mode: str) -> None:
        if mode == "absent":
            sys.modules["opentelemetry"] = None  # type: ignore[assignment]
            telemetry.configure()
            assert not telemetry.enabled()
            return
        sys.modules["opentelemetry"] = self._saved  # type: ignore[assignment]
        if mode == "sdk":
            telemetry.configure(self.tracer_provider, self.meter_provider)
        else:
            telemetry.configure()
        assert telemetry.enabled()
        self.exporter.clear()


def per_call_us(fn: Callable[[], None], calls: int, batches: int) -> float:
    """Median over ``batches`` of the mean microseconds of one ``fn()`` in a batch of
    ``calls``."""
    samples = []
    for _ in range(batches):
        began = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - began) / calls * 1e6)
    return round(statistics.median(samples), 3)


def one_span() -> None:
    with telemetry.span("graphmem.bench", memory="state", k=5) as span:
        span.set(items=5, rounds=2)


def one_db_span() -> None:
    with telemetry.db_span("state/merge_events", "read", "neo4j") as call:
        telemetry.db_rows(3)
        call.retries = 0


def spans_table(modes: Modes, calls: int, batches: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for mode in MODES:
        modes.use(mode)
        one_span(), one_db_span()  # resolve the API once before timing
        out[mode] = {"span_us": per_call_us(one_span, calls, batches),
                     "db_span_us": per_call_us(one_db_span, calls, batches)}
        modes.exporter.clear()
    return out


def recall_table(modes: Modes, turns: int, rounds: int) -> dict[str, Any]:
    from graphmem import GraphMemory
    from graphmem.conversations import read_locomo
    from graphmem.datasets import resolve
    from graphmem.evaluation.locomo import truncate_conversation

    [conv] = read_locomo(resolve("locomo"))[:1]
    conv = truncate_conversation(conv, turns)
    questions = [qa.question for qa in conv.qa][:10] or ["What did Caroline do?"]
    modes.use("api_no_sdk")
    with GraphMemory.from_settings(migrate=True) as root:
        mem = root.scoped(f"bench-otel-{uuid.uuid4().hex[:8]}")
        try:
            mem.state.ingest([conv])
            mem.associative.ingest([conv])
            for question in questions:  # warm: model, query cache, vector cache, plans
                mem.recall(question, k=5)
            times: dict[str, list[float]] = {mode: [] for mode in MODES}
            spans: list[int] = []
            for number in range(rounds):
                for index, question in enumerate(questions):
                    shift = (number + index) % len(MODES)  # each mode first as often
                    for mode in MODES[shift:] + MODES[:shift]:
                        modes.use(mode)
                        began = time.perf_counter()
                        mem.recall(question, k=5)
                        times[mode].append((time.perf_counter() - began) * 1000)
                        if mode == "sdk":
                            spans.append(len(modes.exporter.get_finished_spans()))
        finally:
            modes.use("api_no_sdk")
            mem.delete_namespace()

    def quantile(values: list[float], q: float) -> float:
        return round(statistics.quantiles(values, n=100)[int(q * 100) - 1], 2)

    return {"turns": len(conv.turns), "questions": len(questions), "recalls_per_mode":
            len(times["sdk"]), "spans_per_recall": statistics.median(spans),
            **{mode: {"p50_ms": quantile(values, 0.5), "p90_ms": quantile(values, 0.9)}
               for mode, values in times.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="span() calls per batch")
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument("--turns", type=int, default=60, help="LoCoMo turns in the namespace")
    parser.add_argument("--rounds", type=int, default=15, help="recall rounds per mode")
    parser.add_argument("--no-recall", action="store_true", help="only the span() timings")
    args = parser.parse_args()
    modes = Modes()
    out: dict[str, Any] = {"span": spans_table(modes, args.calls, args.batches)}
    if not args.no_recall:
        out["recall"] = recall_table(modes, args.turns, args.rounds)
        per_recall = out["recall"]["spans_per_recall"]
        out["added_per_recall_us"] = {
            mode: round(per_recall * (out["span"][mode]["db_span_us"]
                                      - out["span"]["absent"]["db_span_us"]), 1)
            for mode in ("api_no_sdk", "sdk")}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

"""On the real driver and server: list parameters (rows of vectors, ids) reach the server as
lists, and the driver's RUN log line names each list's length instead of formatting its items."""

from __future__ import annotations

import logging
from datetime import datetime, timezone

import pytest

from graphmem.graph.runner import QueryRunner


def test_vector_rows_are_written_and_stay_out_of_the_driver_log(
        runner: QueryRunner, namespace: str, caplog: pytest.LogCaptureFixture) -> None:
    vector = [0.123456789] * 384
    rows = [{"id": f"{namespace}-raw-{i}", "conversation": "c", "text": f"turn {i}",
             "speaker": "A", "source_ids": [f"D1:{i}"],
             "occurred_at": datetime(2023, 5, 1, tzinfo=timezone.utc), "embedding": vector,
             "lexical_terms": None, "lexical_length": None, "ns_token": None} for i in range(2)]
    with caplog.at_level(logging.DEBUG, logger="neo4j"):
        written = runner.write("bench/write_events", namespace=namespace, rows=rows)
        found = runner.read("state/find_existing_events", namespace=namespace,
                            ids=[r["id"] for r in rows] + [f"{namespace}-absent"])
    assert written == [{"written": 2}]
    assert sorted(r["id"] for r in found) == [rows[0]["id"], rows[1]["id"]]
    runs = [r.getMessage() for r in caplog.records if "C: RUN" in r.getMessage()]
    assert any("'rows': <list of 2>" in line for line in runs), runs
    assert any("'ids': <list of 3>" in line for line in runs), runs
    assert not any("0.123456789" in line or f"{namespace}-raw-0" in line for line in runs)

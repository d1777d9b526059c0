"""Robustness wiring in a real Neo4j: a time zone honoured through state ingest, a long id
refused before anything is written, an NFD cue stored whole, duplicate-free state recall and
state ingest next to a legacy bad vector."""

from __future__ import annotations

import json
import math
import unicodedata
from datetime import datetime, timezone
from pathlib import Path

import pytest
from reliability import conversation, tq  # noqa: F401

from graphmem.errors import InvalidInputError
from graphmem.facade import GraphMemory
from graphmem.names import MAX_KEY_BYTES


def _nodes(tq, namespace: str, label: str) -> list[dict]:  # noqa: F811
    return [r["props"] for r in tq.read("read_nodes", namespace=namespace, label=label)]


def test_time_zone_is_honoured_through_state_ingest(runner, embedder, tq, namespace,  # noqa: F811
                                                    tmp_path: Path):
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"speaker": "Ann", "text": "I moved to Lyon last week.",
                                "timestamp": "2024-03-01 10:00 PST", "id": "m1"}) + "\n")
    GraphMemory(runner, embedder, namespace).state.ingest_file(path)
    [event] = _nodes(tq, namespace, "Event")
    stamp = event["occurred_at"].to_native()
    assert stamp.astimezone(timezone.utc) == datetime(2024, 3, 1, 18, 0, tzinfo=timezone.utc)


def test_long_id_is_refused_before_anything_is_written(runner, embedder, tq, namespace,  # noqa: F811
                                                       tmp_path: Path):
    path = tmp_path / "chat.jsonl"
    rows = [{"speaker": "Ann", "text": "Hello there.", "timestamp": "2024-03-01T10:00:00Z",
             "id": "ok"},
            {"speaker": "Ann", "text": "Bye.", "timestamp": "2024-03-01T10:01:00Z",
             "id": "x" * (MAX_KEY_BYTES + 1)}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    facade = GraphMemory(runner, embedder, namespace)
    with pytest.raises(InvalidInputError, match="MAX_KEY_BYTES"):
        facade.state.ingest_file(path)
    assert facade.state.counts() == {k: 0 for k in facade.state.counts()}


def test_nfd_cue_is_stored_whole(runner, embedder, tq, namespace):  # noqa: F811
    nfd = unicodedata.normalize("NFD", "naïve")
    conv = conversation("conv-nfd", [("Ann", f"My {nfd} plan is to learn sailing."),
                                     ("Bob", "Sounds naïve but fun.")])
    GraphMemory(runner, embedder, namespace).associative.ingest([conv])
    cues = {c["text"] for c in _nodes(tq, namespace, "Cue")}
    assert not any(c == "nai" or c.endswith(" nai") or c.startswith("nai ") for c in cues), cues


def test_state_recall_is_duplicate_free(runner, embedder, namespace):
    conv = conversation("conv-dup", [("Ann", "I work as a nurse."),
                                     ("Bob", "Nice."),
                                     ("Ann", "I live in Porto.")])
    facade = GraphMemory(runner, embedder, namespace)
    facade.state.ingest([conv])
    result = facade.state.recall("What is Ann's job?", k=10)
    keys = [(i.text.casefold(), tuple(sorted(i.source_ids))) for i in result.items]
    assert len(keys) == len(set(keys)), keys
    docs = facade.state.documents(result)
    fusion = [d.metadata["fusion_key"] for d in docs]
    assert len(fusion) == len(set(fusion))


def test_state_ingest_survives_a_legacy_bad_vector(runner, embedder, tq, namespace):  # noqa: F811
    facade = GraphMemory(runner, embedder, namespace)
    facade.state.ingest([conversation("conv-a", [("Ann", "I work as a nurse."),
                                                 ("Ann", "I live in Porto.")])])
    for label, bad in (("State", [0.0] * 384), ("Event", [math.nan] * 384)):
        for node in _nodes(tq, namespace, label):
            tq.write("set_embedding", namespace=namespace, id=node["id"], embedding=bad)
    report = facade.state.ingest([conversation(
        "conv-a", [("Ann", "I work as a nurse."), ("Ann", "I live in Porto."),
                   ("Ann", "Now I work as a teacher."), ("Ann", "I moved to Lyon.")])])
    assert report.inputs == 4

"""The smoke subset run against extra servers (authenticated launcher, calendar Neo4j): migrate,
write and read through state memory, a vector index query and a full-text query, a recall."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from graphmem.conversations import Conversation, Turn
from graphmem.graph.migrations import Migrator
from graphmem.graph.runner import QueryRunner
from graphmem.state import StateMemory

TURNS = [
    ("s1", "I live in Lyon and work at the bakery.", 3, "Lyon"),
    ("s2", "Last week I moved to Paris for a new job.", 6, "Paris"),
]


def tiny_conversation() -> Conversation:
    """Two turns of one speaker whose residence changes from Lyon to Paris."""
    turns = [Turn(source_id=sid, speaker="Ann", text=text,
                  timestamp=datetime(2024, month, 1, tzinfo=timezone.utc), position=month,
                  meta={"attribute": "Residence", "value": value, "kind": "attribute"})
             for sid, text, month, value in TURNS]
    return Conversation(id="c1", speakers=["Ann"], turns=turns)


def run_smoke(runner: QueryRunner, embedder) -> dict:
    """Migrate (twice: the second is a no-op), ingest, query both index kinds, recall.

    Returns what was observed, for the caller's assertions; the namespace is deleted after.
    """
    migrator = Migrator(runner, vector_dimension=384)
    migrator.migrate()
    assert migrator.migrate() == []
    namespace = f"smoke-{uuid.uuid4().hex[:10]}"
    try:
        mem = StateMemory(runner, embedder, namespace)
        report = mem.ingest([tiny_conversation()])
        counts = {row["label"]: row["nodes"]
                  for row in runner.read("core/count_namespace_nodes", namespace=namespace)}
        # both index kinds through the retrieval engine's one query: the vector side (exact for
        # this small tenant) and the full-text side (Lucene BM25)
        from graphmem.retrieval import HybridSearch

        search = HybridSearch(runner, label="Event")
        question = "Where does Ann live now?"
        vector = [{"source_ids": c.source_ids, "score": c.components["dense"]}
                  for c in search.search(namespace, question, embedder.embed_query(question), k=5)
                  if c.flags.get("via_dense")]
        fulltext = [{"source_ids": c.source_ids}
                    for c in search.search(namespace, "bakery", embedder.embed_query("bakery"), k=5)
                    if c.flags.get("via_lexical")]
        recall = mem.recall("Where does Ann live now?", k=5)
        return {"report": report, "counts": counts, "vector": vector, "fulltext": fulltext,
                "recall": recall, "check": mem.check(), "counts_memory": mem.counts()}
    finally:
        runner.write("core/delete_namespace", namespace=namespace)


def assert_smoke(seen: dict) -> None:
    """The values every server must give for :func:`tiny_conversation`."""
    assert seen["report"].created["Event"] == 2
    assert seen["report"].details["state_relations"] == {"initial": 1, "change": 1}
    assert seen["counts"]["Event"] == 2 and seen["counts"]["State"] == 2
    assert seen["counts"]["Topic"] == 1
    assert {row["source_ids"][0] for row in seen["vector"]} == {"s1", "s2"}
    assert all(-1.0 <= row["score"] <= 1.0 for row in seen["vector"])
    assert [row["source_ids"] for row in seen["fulltext"]] == [["s1"]]
    assert seen["recall"].items and seen["recall"].items[0].kind == "state"
    assert seen["recall"].items[0].value == "paris"
    assert seen["check"]["bad_current"] == 0 and seen["counts_memory"]["State"] == 2

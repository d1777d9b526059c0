"""Shared pieces of the reliability suite (tests/*/test_reliability_*.py): test-only queries,
a second tenant, snapshots of a namespace, and small synthetic trajectories."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.experience.trajectories import Trajectory
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.memory import all_labels

TEST_CYPHER = Path(__file__).parent / "integration" / "cypher"
LABELS = all_labels()  # every registered memory's labels (graphmem.memory registry)


@pytest.fixture
def tq(runner: QueryRunner) -> QueryRunner:
    """The same driver and bookmarks with the test-only queries of tests/integration/cypher/
    (so on a cluster its reads see the memories' writes)."""
    return QueryRunner(runner.driver, CypherRegistry.load(TEST_CYPHER), database=runner.database,
                       bookmark_manager=runner.bookmark_manager)


@pytest.fixture
def other_namespace(runner: QueryRunner) -> Iterator[str]:
    """A second fresh tenant, deleted afterwards."""
    ns = f"test-other-{uuid.uuid4().hex[:12]}"
    yield ns
    runner.write("core/delete_namespace", namespace=ns)


def counts(tq: QueryRunner, namespace: str) -> dict[str, int]:
    """Nodes of any label carrying ``namespace`` and relationships touching them."""
    return tq.read("count_any_namespace", namespace=namespace)[0]


def snapshot(tq: QueryRunner, namespace: str) -> dict[str, dict[str, dict[str, Any]]]:
    """Every node of ``namespace`` by label and id with all its properties (embeddings
    included), plus the relationship count: equal snapshots mean nothing was touched."""
    out: dict[str, Any] = {}
    for label in LABELS:
        rows = tq.read("read_nodes", namespace=namespace, label=label)
        if rows:
            out[label] = {r["id"]: r["props"] for r in rows}
    out["_counts"] = counts(tq, namespace)
    return out


def texts_of(tq: QueryRunner, namespace: str, label: str, prop: str) -> list[str]:
    """Values of ``prop`` over the ``label`` nodes of ``namespace``."""
    return [r["props"].get(prop) for r in tq.read("read_nodes", namespace=namespace, label=label)]


def trajectory(task_id: str, query: str, actions: list[str], reward: float = 1.0,
               kind: str = "expert") -> Trajectory:
    """A small generic trajectory; each action's observation names the action."""
    return Trajectory(task_id=task_id, query=query, initial_observation="You are in a room.",
                      steps=[{"action": a, "observation": f"You did: {a}."} for a in actions],
                      reward=reward, kind=kind, grammar="alfworld")


class MemoEmbedder:
    """The real embedder with a memo: each distinct text is encoded once (misses in one batch),
    so a corpus can go through many entry points without re-encoding. Same vectors as the
    wrapped embedder; validation (empty, too long, lone surrogate) still runs on every call."""

    def __init__(self, embedder: Any):
        self.inner = embedder
        self.memo: dict[str, Any] = {}

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed_documents(self, texts):
        import numpy as np

        from graphmem.embeddings import validate_texts

        items = validate_texts(texts)
        missing = list(dict.fromkeys(t for t in items if t not in self.memo))
        if missing:
            for text, vector in zip(missing, self.inner.embed_documents(missing)):
                self.memo[text] = vector
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self.memo[t] for t in items])

    def embed_query(self, text: str):
        return self.embed_documents([text])[0]


class FailingEmbedder(MemoEmbedder):
    """Raises ``RuntimeError`` when asked for its ``fail_at``-th text (1-based, counted over all
    calls), or for the text ``fail_on``: a failure injected in the middle of an ingest."""

    def __init__(self, embedder: Any, fail_at: int = 0, fail_on: str | None = None):
        super().__init__(embedder)
        self.fail_at = fail_at
        self.fail_on = fail_on
        self.seen = 0
        self.armed = True

    def embed_documents(self, texts):
        texts = list(texts)
        if self.armed and self.fail_on is not None and self.fail_on in texts:
            raise RuntimeError(f"injected embedder failure at item {self.fail_on!r}")
        if self.armed and self.seen < self.fail_at <= self.seen + len(texts):
            self.seen += len(texts)
            raise RuntimeError(f"injected embedder failure at item {self.fail_at}")
        self.seen += len(texts)
        return super().embed_documents(texts)


class FailingRunner:
    """A :class:`QueryRunner` (same driver and registry) whose next write transactions raise
    ``RuntimeError`` right before their ``fail_on``-th statement: a crash in the middle of a
    unit of work, inside the transaction, after earlier statements of it already ran."""

    def __new__(cls, runner: QueryRunner, fail_on: int, failures: int = 1):
        class _Failing(QueryRunner):
            remaining = failures

            def transaction(self, mode, work, name=None):  # noqa: ANN001
                if mode != "write" or self.remaining <= 0:
                    return super().transaction(mode, work, name)
                outer = self

                class _Tx:
                    def __init__(self, tx):
                        self.tx, self.statements = tx, 0

                    def run(self, query, params=None):  # noqa: ANN001
                        self.statements += 1
                        if self.statements == fail_on:
                            outer.remaining -= 1
                            raise RuntimeError(f"injected crash before statement {fail_on}")
                        return self.tx.run(query, params)

                return super().transaction(mode, lambda tx: work(_Tx(tx)), name)

        return _Failing(runner.driver, runner.registry, database=runner.database)


def conversation(conv_id: str, turns: list[tuple[str, str]], meta: list[dict] | None = None,
                 start: str = "2024-03-01T09:00:00+00:00"):
    """A :class:`graphmem.conversations.Conversation` of ``(speaker, text)`` turns one hour apart
    (source ids ``D1:1``, ``D1:2``, ...)."""
    from datetime import datetime, timedelta

    from graphmem.conversations import Conversation, Turn

    t0 = datetime.fromisoformat(start)
    out = [Turn(source_id=f"D1:{i + 1}", speaker=s, text=t, timestamp=t0 + timedelta(hours=i),
                session="session_1", position=i, meta=(meta[i] if meta else {}))
           for i, (s, t) in enumerate(turns)]
    return Conversation(id=conv_id, turns=out, speakers=sorted({s for s, _ in turns}))


def locomo_prefix_file(directory: Path, turns: int, name: str, conversations: int = 1) -> Path:
    """The first ``conversations`` conversations of the bundled LoCoMo sample, each cut to its
    first ``turns`` turns (whole sessions first, in session order), written as a LoCoMo file
    ``directory / name``."""
    import json

    from graphmem import datasets

    out = []
    for record in json.loads(datasets.resolve("locomo").read_text())[:conversations]:
        conv = record["conversation"]
        keep = {"speaker_a": conv["speaker_a"], "speaker_b": conv["speaker_b"]}
        n = 0
        for i in range(1, 40):
            kept = conv.get(f"session_{i}", [])[: turns - n]
            if not kept:
                break
            keep[f"session_{i}_date_time"] = conv[f"session_{i}_date_time"]
            keep[f"session_{i}"] = kept
            n += len(kept)
        out.append({"sample_id": record["sample_id"], "conversation": keep, "qa": [],
                    "event_summary": {}, "observation": {}, "session_summary": {}})
    path = directory / name
    path.write_text(json.dumps(out))
    return path

"""A toy fifth memory for the extensibility tests: ``note`` owns the label ``Note`` (whose
nodes carry the ``embedding`` of their ``text``: its one embedded label) and reads and writes
through the test-only queries ``tests/integration/cypher/note/*.cypher``. Adding it takes this
module and one :func:`graphmem.memory.register_memory` call — nothing in graphmem."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from pydantic import Field

from graphmem.memory import (
    MEMORY_REGISTRY,
    IngestReport,
    Memory,
    MemorySpec,
    Progress,
    RecallItem,
    RecallOptions,
    RecallResult,
    check_count,
    register_memory,
)
from graphmem.names import node_id
from graphmem.langchain.retrievers import item_document

TEST_CYPHER = Path(__file__).parent / "integration" / "cypher"
SPEC = MemorySpec("note", "toy_memory:NoteMemory", ("Note",), "toy: plain notes (tests only)",
                  embedded_labels=("Note",))
#: The same memory as an installed package declares it: with the folder of its own queries.
PLUGIN_SPEC = MemorySpec("note", "toy_memory:NoteMemory", ("Note",),
                         "toy: plain notes (tests only)", cypher=str(TEST_CYPHER),
                         embedded_labels=("Note",))


class NoteItem(RecallItem):
    """A recalled note (no fields of its own beyond the contract's)."""


class NoteRecallOptions(RecallOptions):
    """The toy's one recall option."""

    memory = "note"

    min_score: float = Field(0.0, ge=0.0, description="drop notes scoring below it")


class NoteMemory(Memory[NoteItem]):
    """Plain text notes; recall ranks notes containing the query first."""

    name = "note"
    options_model = NoteRecallOptions

    def recall(self, query: str, k: int = 10, *, min_score: float = 0.0) -> RecallResult[NoteItem]:
        check_count("k", k)
        rows = self.runner.read("note/recall_notes", namespace=self.namespace, text=query, k=k)
        items = [NoteItem(id=r["id"], memory=self.name, kind="note", text=r["text"],
                          score=float(r["score"]), source_ids=[r["id"]])
                 for r in rows if float(r["score"]) >= min_score]
        return RecallResult[NoteItem](memory=self.name, namespace=self.namespace, query=query,
                                      items=items)

    def ingest(self, inputs: Any, *, progress: Progress | None = None) -> IngestReport:
        texts = list(inputs)
        vectors = self.embedder.embed_documents(texts) if texts and self.embedder else []
        rows = [{"id": node_id(self.namespace, "note", text), "text": text,
                 "embedding": [float(x) for x in vectors[i]] if len(vectors) else None}
                for i, text in enumerate(texts)]
        out = self.runner.write("note/write_notes", namespace=self.namespace, rows=rows)
        report = IngestReport(memory=self.name, namespace=self.namespace, inputs=len(texts))
        report.add_created({"Note": int(out[0]["created"]) if out else 0})
        if progress:
            progress(len(texts))
        return report

    def counts(self) -> dict[str, int]:
        rows = self.runner.read("note/count_notes", namespace=self.namespace)
        return {"Note": int(rows[0]["nodes"]) if rows else 0}

    def documents(self, result: RecallResult[NoteItem]) -> list:
        return [item_document(item, result.namespace, rank, [], {"source_ids": item.source_ids})
                for rank, item in enumerate(result.items, start=1)]


@contextmanager
def registered(spec: MemorySpec) -> Iterator[MemorySpec]:
    """``spec`` in the memory registry for the block; removed afterwards."""
    register_memory(spec)
    try:
        yield spec
    finally:
        MEMORY_REGISTRY.pop(spec.name, None)


def note_registered() -> AbstractContextManager[MemorySpec]:
    """``note`` in the memory registry for the block."""
    return registered(SPEC)


CHAT_SPEC = MemorySpec("chatnote", "toy_memory:ChatNoteMemory", ("ChatNote",),
                       "toy: one note per chat message (tests only)")


class ChatNoteMemory(NoteMemory):
    """The toy as a memory that stores conversation messages (it declares ``message_queries``):
    ``mem.add`` writes it by default, runs its own check first, and dates messages after the
    latest one it tells of. A message containing ``FORBIDDEN`` is refused by its check."""

    name = "chatnote"
    message_queries = "chatnote"

    def check_conversation(self, conversation: Any) -> None:
        from graphmem.errors import InvalidInputError

        for turn in conversation.turns:
            if "FORBIDDEN" in turn.text:
                raise InvalidInputError(f"chatnote refuses message {turn.source_id!r}")

    def ingest(self, inputs: Any, *, progress: Progress | None = None) -> IngestReport:
        texts = [turn.text for conversation in inputs for turn in conversation.turns]
        report = super().ingest(texts, progress=progress)
        report.created = {"ChatNote": report.created.get("Note", 0)} if report.created else {}
        return report


def chat_note_registered() -> AbstractContextManager[MemorySpec]:
    """``chatnote`` in the memory registry for the block."""
    return registered(CHAT_SPEC)

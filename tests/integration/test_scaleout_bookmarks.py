"""Read-your-writes through the facade on the real Neo4j: every session of a runner starts with
the bookmarks of the transactions committed through it before, so a read right after a write
sees the write on any cluster member; ``scoped`` facades of one connection share them."""

from __future__ import annotations

from neo4j import GraphDatabase
from neo4j.api import BookmarkManager
from reliability import other_namespace  # noqa: F401

from graphmem.facade import GraphMemory
from graphmem.graph.runner import QueryRunner


class RecordingBookmarks(BookmarkManager):
    """The driver's bookmark manager, recording what each session was given at its start and
    what it reported at its end."""

    def __init__(self) -> None:
        self.inner = GraphDatabase.bookmark_manager()
        self.given: list[set[str]] = []
        self.updates: list[tuple[set[str], set[str]]] = []

    def get_bookmarks(self) -> set[str]:
        bookmarks = self.inner.get_bookmarks()
        self.given.append(set(bookmarks))
        return bookmarks

    def update_bookmarks(self, previous_bookmarks, new_bookmarks) -> None:
        self.updates.append((set(previous_bookmarks), set(new_bookmarks)))
        self.inner.update_bookmarks(previous_bookmarks, new_bookmarks)


MESSAGE = {"id": "m1", "role": "Ann", "content": "I moved to Lyon last week.",
           "timestamp": "2024-05-03T09:00:00Z"}


def test_a_read_after_a_write_carries_the_writes_bookmark(runner, embedder, namespace) -> None:
    bookmarks = RecordingBookmarks()
    own = QueryRunner(runner.driver, runner.registry, database=runner.database,
                      bookmark_manager=bookmarks)
    mem = GraphMemory(own, embedder, namespace=namespace)
    assert mem.bookmark_manager is bookmarks and mem.scoped("elsewhere").bookmark_manager is bookmarks
    before = bookmarks.inner.get_bookmarks()           # the facade's start-up read's

    mem.add(MESSAGE, conversation_id="c1", memories=("state",))
    after_write = bookmarks.inner.get_bookmarks()
    assert len(after_write) == 1 and after_write != before   # the commit moved it on
    assert bookmarks.updates[-1][1] == after_write     # the write session reported it
    # a session after the first write started from what the sessions before it committed
    assert any(given and given <= {b for _, new in bookmarks.updates for b in new}
               for given in bookmarks.given)

    reads_before = len(bookmarks.given)
    stored = mem.messages("c1")                        # an immediate read through the facade
    assert [m.content for m in stored] == ["I moved to Lyon last week."]
    assert [m.id for m in stored] == ["m1"]
    assert bookmarks.given[reads_before] == after_write


def test_scoped_facades_see_each_others_writes(runner, embedder, namespace, other_namespace) -> None:
    bookmarks = RecordingBookmarks()
    own = QueryRunner(runner.driver, runner.registry, database=runner.database,
                      bookmark_manager=bookmarks)
    writer = GraphMemory(own, embedder, namespace=namespace).scoped(other_namespace)
    reader = GraphMemory(own, embedder, namespace=namespace).scoped(other_namespace)
    writer.add(MESSAGE, conversation_id="c1", memories=("state",))
    written = bookmarks.inner.get_bookmarks()
    given = len(bookmarks.given)
    assert reader.state.counts()["Event"] == 1
    assert bookmarks.given[given] == written

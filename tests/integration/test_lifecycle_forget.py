"""Forget on the real Neo4j (``GraphMemory.forget``, :mod:`graphmem.agent.forget`), proven by
scanning what the namespace still holds and comparing it with a tenant that never held it.

Two real conversations (the bundled LoCoMo conv-26, sessions 1-2 and 3-4 as two conversations)
go into state and associative memory. Forgetting one speaker's messages of the first
conversation must leave no string property of any node or relationship of the namespace holding
a forgotten text or id, no recall of any memory returning one, every count lower by exactly what
the report says (plus the audit record), and the namespace answering every recall exactly
like a witness tenant fed only what was kept; a second
forget removes nothing; and forgetting a whole conversation then adding it again rebuilds the
same graph.
"""

from __future__ import annotations

import re

from reliability import other_namespace, tq  # noqa: F401

from graphmem import datasets
from graphmem.conversations import Conversation, read_conversations
from graphmem.facade import GraphMemory
from graphmem.names import node_id


def _two_conversations() -> tuple[Conversation, Conversation]:
    [conv] = read_conversations(datasets.resolve("locomo"), "locomo")[:1]
    sessions = conv.sessions
    first = [t for t in conv.turns if t.session in sessions[:2]]
    second = [t for t in conv.turns if t.session in sessions[2:4]]
    return (Conversation(id="chat-a", turns=first, speakers=conv.speakers),
            Conversation(id="chat-b", turns=second, speakers=conv.speakers))


def _graph(tq, namespace: str) -> tuple[dict[str, set[str]], set[tuple[str, str, str]], list]:
    nodes: dict[str, set[str]] = {}
    rows = tq.read("read_namespace_graph", namespace=namespace)
    for row in rows:
        for label in row["labels"]:
            nodes.setdefault(label, set()).add(row["id"])
    rels = tq.read("read_relationships", namespace=namespace)
    edges = {(r["type"], r["source"], r["target"]) for r in rels}
    return nodes, edges, [r["props"] for r in rows] + [r["props"] for r in rels]


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, str)]
    return []


def _recalled_ids(mem: GraphMemory, query: str) -> set[str]:
    ids: set[str] = set()
    for result in (mem.recall(query, k=10), mem.state.recall(query, k=10),
                   mem.associative.recall(query, k=10)):
        for item in result.items:
            ids.update(item.source_ids)
    return ids


def test_forget_a_speaker_leaves_no_trace(runner, embedder, tq, namespace,
                                          other_namespace) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    chat_a, chat_b = _two_conversations()
    for memory in (mem.state, mem.associative):
        memory.ingest([chat_b])
        memory.ingest([chat_a])
    speaker = chat_a.speakers[0]
    gone = [t for t in chat_a.turns if t.speaker == speaker]
    kept_texts = [t.text for t in chat_a.turns + chat_b.turns if t.speaker != speaker
                  or t in chat_b.turns]
    assert len(gone) >= 10 and any(t.speaker == speaker for t in chat_b.turns)
    total_before = tq.read("count_any_namespace", namespace=namespace)[0]
    per_label_before = {label: n for per in mem.counts().values() for label, n in per.items()}

    report = mem.forget(conversation_id="chat-a", speaker=speaker, actor="dpo@example.org")

    assert report.messages == len(gone) and report.conversations == ["chat-a"]
    assert report.per_memory == {"state": len(gone), "associative": len(gone)}
    assert report.rebuilt == {"state": len(chat_a.turns) - len(gone),
                              "associative": len(chat_a.turns) - len(gone)}
    per_label_after = {label: n for per in mem.counts().values() for label, n in per.items()}
    for label, n in per_label_before.items():
        assert per_label_after[label] == n - report.nodes.get(label, 0), label
    assert report.nodes["Event"] == len(gone) and report.nodes["Episode"] == len(gone)
    total_after = tq.read("count_any_namespace", namespace=namespace)[0]
    assert total_after["nodes"] == total_before["nodes"] - sum(report.nodes.values()) + 1

    # no string property of any node or relationship holds a forgotten text or id
    texts = [t.text for t in gone if len(t.text) >= 25 and not any(t.text in k for k in kept_texts)]
    assert len(texts) >= 5
    unit_ids = [node_id(namespace, kind, "chat-a", t.source_id) for t in gone
                for kind in ("event", "episode", "state")]
    source_id = re.compile("|".join(rf"(?<![\w:]){re.escape(t.source_id)}(?![\w:])"
                                    for t in gone))
    _, _, props = _graph(tq, namespace)
    for prop in props:
        for key, value in prop.items():
            for s in _strings(value):
                assert not any(text in s for text in texts), (key, s[:80])
                assert not any(uid in s for uid in unit_ids), (key, s[:80])
                assert not source_id.search(s), (key, s[:80])
    # no recall of any memory returns a forgotten message
    forgotten = {t.source_id for t in gone}
    for text in texts[:5]:
        assert not _recalled_ids(mem, text) & forgotten, text
    # the namespace now answers exactly like one that never held them: a witness tenant fed
    # the other conversation, then what is left of the first (the order the rebuild follows)
    witness = GraphMemory(runner, embedder, other_namespace)
    kept = Conversation(id="chat-a", turns=[t for t in chat_a.turns if t.speaker != speaker],
                        speakers=chat_a.speakers)
    for memory in (witness.state, witness.associative):
        memory.ingest([chat_b])
        memory.ingest([kept])
    assert mem.counts() == witness.counts()
    assert mem.relationship_counts() == witness.relationship_counts()
    probes = [t.text for t in chat_b.turns[:40:8] + kept.turns[:40:8]]
    for probe in probes:
        assert ([i.fusion_key for i in mem.recall(probe, k=10).items]
                == [i.fusion_key for i in witness.recall(probe, k=10).items]), probe
    # the audit record names no forgotten value, and a second forget removes nothing
    [audit] = mem.audit_records()
    assert audit["actor"] == "dpo@example.org" and audit["counts"]["messages"] == len(gone)
    assert set(audit["selectors"]) == {"conversation", "speaker"}
    assert speaker not in str(audit) and "chat-a" not in str(audit)
    again = mem.forget(conversation_id="chat-a", speaker=speaker)
    assert again.messages == 0 and again.nodes == {} and again.relationships == {}
    assert tq.read("count_any_namespace", namespace=namespace)[0]["nodes"] == \
        total_after["nodes"] + 1


def test_forget_a_conversation_then_add_it_again_rebuilds_the_same_graph(
        runner, embedder, tq, namespace) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    chat_a, chat_b = _two_conversations()
    for memory in (mem.state, mem.associative):
        memory.ingest([chat_b])
        memory.ingest([chat_a])
    nodes_before, edges_before, _ = _graph(tq, namespace)
    probe = chat_b.turns[5].text

    recalled_before = [i.fusion_key for i in mem.recall(probe, k=10).items]
    report = mem.forget(conversation_id="chat-a")
    assert report.messages == len(chat_a.turns) and report.rebuilt == {}
    nodes_mid, _, _ = _graph(tq, namespace)
    assert nodes_mid["Event"] == {node_id(namespace, "event", "chat-b", t.source_id)
                                  for t in chat_b.turns}
    assert nodes_mid["Episode"] == {node_id(namespace, "episode", "chat-b", t.source_id)
                                    for t in chat_b.turns}
    assert mem.messages("chat-a") == []
    assert mem.forget(message_ids=[chat_a.turns[0].source_id]).messages == 0

    for memory in (mem.state, mem.associative):
        memory.ingest([chat_a])
    nodes_after, edges_after, _ = _graph(tq, namespace)
    nodes_after.pop("AuditRecord")
    assert nodes_after == nodes_before
    assert edges_after == edges_before
    assert [i.fusion_key for i in mem.recall(probe, k=10).items] == recalled_before


def test_forget_selectors_are_checked_before_anything(runner, embedder, namespace) -> None:
    import pytest

    from graphmem.errors import InvalidInputError

    mem = GraphMemory(runner, embedder, namespace)
    for bad, match in (({}, "at least one selector"),
                       ({"message_ids": "D1:1"}, "list of ids"),
                       ({"message_ids": []}, "message_ids is empty"),
                       ({"speaker": ""}, "speaker")):
        with pytest.raises(InvalidInputError, match=match):
            mem.forget(**bad)
    assert mem.audit_records() == []


def test_forget_by_ids_across_conversations_and_memories(runner, embedder, tq, namespace) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    lines = ["My sister Lena lives in Porto and teaches piano.",
             "I adopted a grey cat named Pixel last spring.",
             "We are planning a trip to Kyoto in October.",
             "The new job starts on the first of March."]
    mem.add([{"id": f"x{i}", "role": "user", "content": t} for i, t in enumerate(lines[:2])],
            conversation_id="both")
    mem.add([{"id": f"x{i}", "role": "user", "content": t} for i, t in enumerate(lines[2:])],
            conversation_id="episodes-only", memories=["associative"])
    # x0 names one message in each conversation; the second lives in associative memory only
    report = mem.forget(message_ids=["x0"])
    assert report.messages == 2 and report.conversations == ["both", "episodes-only"]
    assert report.per_memory == {"state": 1, "associative": 2}
    assert report.rebuilt == {"state": 1, "associative": 2}
    assert mem.counts()["state"]["Event"] == 1 and mem.counts()["associative"]["Episode"] == 2
    texts = [p.get("text") or "" for p in _graph(tq, namespace)[2]]
    assert not any("Porto" in t or "Kyoto" in t for t in texts)
    assert any("Pixel" in t for t in texts) and any("March" in t for t in texts)
    assert [m.id for m in mem.messages("both")] == ["x1"]


def _interleaving_runner(runner, before_delete):
    """The same driver and registry; ``before_delete()`` runs once, right before the first
    forget delete transaction (a write committed by someone else in between)."""
    from graphmem.graph.runner import QueryRunner

    class _Interleaved(QueryRunner):
        pending = [before_delete]

        def transaction(self, mode, work, name=None):  # noqa: ANN001
            if name and name.endswith("/delete_conversations") and self.pending:
                self.pending.pop()()
            return super().transaction(mode, work, name)

    return _Interleaved(runner.driver, runner.registry, database=runner.database,
                        bookmark_manager=runner.bookmark_manager)


def test_a_message_added_during_a_forget_is_kept(runner, embedder, namespace) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    mem.add([{"id": "a1", "role": "Ann", "content": "My sister Lena lives in Porto."},
             {"id": "b1", "role": "Bo", "content": "Porto has lovely tiles."}],
            conversation_id="chat")

    def someone_adds() -> None:
        mem.add([{"id": "b2", "role": "Bo", "content": "I adopted a grey cat named Pixel."}],
                conversation_id="chat")

    racing = GraphMemory(_interleaving_runner(runner, someone_adds), embedder, namespace)
    report = racing.forget(conversation_id="chat", speaker="Ann")
    assert report.messages == 1
    assert [m.id for m in mem.messages("chat")] == ["b1", "b2"]
    assert mem.counts()["associative"]["Episode"] == 2
    assert any("Pixel" in i.text for i in mem.recall("What is the cat called?", k=3).items)


def test_a_failed_rebuild_says_so_and_completes(runner, embedder, namespace) -> None:
    import pytest
    from reliability import FailingEmbedder

    from graphmem.errors import IncompleteForgetError

    mem = GraphMemory(runner, embedder, namespace)
    mem.add([{"id": "a1", "role": "Ann", "content": "My sister Lena lives in Porto."},
             {"id": "b1", "role": "Bo", "content": "Porto has lovely tiles and steep hills."}],
            conversation_id="chat")
    failing = FailingEmbedder(embedder, fail_at=1)  # the first text the rebuild encodes
    broken = GraphMemory(runner, failing, namespace)
    with pytest.raises(IncompleteForgetError, match="err.complete") as caught:
        broken.forget(message_ids=["a1"])
    [(name, conversation)] = caught.value.pending
    assert name == "state" and [t.source_id for t in conversation.turns] == ["b1"]
    assert mem.messages("chat") == []            # deleted, not yet rebuilt
    caught.value.complete(mem)
    assert [m.id for m in mem.messages("chat")] == ["b1"]
    again = mem.forget(message_ids=["a1"])       # finishes the other memory
    assert again.per_memory == {"associative": 1} and again.rebuilt == {"associative": 1}
    assert mem.counts()["associative"]["Episode"] == 1

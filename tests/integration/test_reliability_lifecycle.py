"""Lifecycle on the real Neo4j: memory edits (ARCHIVE, REVISE) never delete a node or an evidence
relationship; only ``GraphMemory.delete_namespace`` deletes, and it removes one tenant completely
(count queries: no node of that namespace, whatever its label, and no relationship touching one)
while every other tenant stays byte-for-byte the same."""

from __future__ import annotations

from fakes import ScriptedChatModel, tool_reply
from reliability import MemoEmbedder, counts, other_namespace, snapshot, tq  # noqa: F401

from graphmem.facade import GraphMemory
from graphmem.insight import InsightMemory


def _plan(*edits, add=False):
    return tool_reply("ControllerOutput", {
        "edits": [{"insight_id": i, "operation": op, "reason": "scripted",
                   **({"revised_content": f"revised {i}"} if op == "REVISE" else {})}
                  for i, op in edits], "add": add, "add_reason": "scripted"})


def test_archive_and_revise_never_delete(runner, embedder, tq, namespace) -> None:
    memo = MemoEmbedder(embedder)
    base = InsightMemory(runner, memo, namespace, related_top=0)
    seed = base.add_query("Is the Rhine longer than the Elbe?", "resolved", ["search[Rhine]"])
    one = base.add_insight("Compare lengths on the rivers' pages.", [seed])
    two = base.add_insight("Check the lengths in one consistent unit.", [seed])
    before = snapshot(tq, namespace)

    llm = ScriptedChatModel(responses=[_plan((one, "ARCHIVE"), (two, "REVISE"))])
    mem = InsightMemory(runner, memo, namespace, llm=llm, related_top=0)
    result = mem.feedback("Is the Danube longer than the Rhine?", "failed", ["search[Danube]"],
                          [one, two])
    assert result.archived == [one] and set(result.revised) == {two}

    after = snapshot(tq, namespace)
    for label, nodes in before.items():              # every node is still there
        if label != "_counts":
            assert set(nodes) <= set(after[label]), label
    assert after["_counts"]["relationships"] > before["_counts"]["relationships"]
    old_one, old_two, new_two = mem.get_insights([one, two, result.revised[two]])
    assert not old_one.active and not old_two.active and new_two.active
    assert seed in old_one.supporting_query_ids and seed in old_two.supporting_query_ids
    assert len(old_one.conflicting_query_ids) == 1                  # the failed query: Omega-
    assert mem.history(two).revised_by == [result.revised[two]]
    assert after["Insight"][one]["archived_at"] is not None
    # archived insights are kept but no longer recalled
    recalled = {i.id for i in base.recall("Is the Rhine longer than the Elbe?", k=5, query_k=3).items}
    assert one not in recalled and two not in recalled
    assert result.revised[two] in recalled
    stats = mem.graph_summary()
    assert stats["archived_insights"] == 2 and stats["active_insights"] == 1


def test_delete_namespace_removes_one_tenant_completely(runner, embedder, tq, namespace,
                                                         other_namespace) -> None:
    memo = MemoEmbedder(embedder)
    for ns in (namespace, other_namespace):
        mem = InsightMemory(runner, memo, ns, related_top=2, related_threshold=0.0)
        for i in range(6):
            q = mem.add_query(f"Question {i} about the Elbe", "resolved", [f"step {i}", "finish"])
            mem.add_insight(f"Insight {i} about rivers", [q])
        GraphMemory(runner, memo, ns).experience.ingest([
            {"task_id": f"t{i}", "query": f"carry the boat {i}", "reward": 1.0,
             "steps": [{"action": "go to dock 1", "observation": "You arrive at dock 1."},
                       {"action": f"take boat {i} from dock 1", "observation": "You take it."}]}
            for i in range(4)], k=2, tau=-1.0)
    other_before = snapshot(tq, other_namespace)
    mine = counts(tq, namespace)
    per_label = {r["label"]: r["nodes"] for r in
                 runner.read("core/count_namespace_nodes", namespace=namespace)}
    assert sum(per_label.values()) == mine["nodes"]       # every node has a known label
    facade = GraphMemory(runner, memo, namespace)
    per_memory = facade.counts()                          # each memory's own label counts add up too
    assert sum(n for name, per in per_memory.items() for label, n in per.items()
               if label in facade.memory(name).labels) == mine["nodes"]
    assert per_memory["state"] == {"Topic": 0, "Event": 0, "State": 0, "ConversationLock": 0,
                                   "Person": 0}
    deleted = facade.delete_namespace(batch_size=10)
    assert deleted == mine["nodes"]
    assert counts(tq, namespace) == {"nodes": 0, "relationships": 0}
    assert runner.read("core/count_namespace_nodes", namespace=namespace) == []
    assert snapshot(tq, other_namespace) == other_before

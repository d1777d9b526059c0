"""An insight's decisions come back in the order they were made even when they share a
statement (and so the same ``created_at``: Cypher's datetime() is the statement's clock):
record_decisions numbers them (``seq``)."""

from __future__ import annotations

from graphmem.embeddings import HashingEmbedder
from graphmem.insight import InsightMemory
from graphmem.names import node_id


def _row(mem: InsightMemory, qid: str, insight_id: str, operation: str, n: int) -> dict:
    return {"id": node_id(mem.namespace, "decision", qid, "order-test", n), "operation": operation,
            "controller": "heuristic", "reason": f"step {n}", "insight_id": insight_id,
            "result_insight_id": None, "status": "failed", "operation_set": "all"}


def test_decisions_in_one_transaction_keep_their_order(runner, namespace) -> None:
    mem = InsightMemory(runner, HashingEmbedder(384), namespace, related_top=0)
    qid = mem.add_query("Boil water fast", "resolved", ["lid on"])
    insight = mem.add_insight("Put a lid on the pot.", [qid])           # ADD, its own transaction
    ops = ["KEEP", "ARCHIVE", "KEEP", "KEEP", "ARCHIVE"]
    # three statements and five decisions in one transaction; rows of one statement share
    # one datetime()
    runner.write_many([
        mem.store.record_decisions(qid, [_row(mem, qid, insight, ops[0], 0)]),
        mem.store.record_decisions(qid, [_row(mem, qid, insight, ops[1], 1),
                                         _row(mem, qid, insight, ops[2], 2)]),
        mem.store.record_decisions(qid, [_row(mem, qid, insight, o, n)
                                         for n, o in enumerate(ops[3:], start=3)]),
    ])
    decisions = mem.history(insight).decisions
    assert [d["operation"] for d in decisions] == ["ADD", *ops]
    assert decisions[2]["created_at"] == decisions[3]["created_at"]    # created_at ties
    assert decisions[4]["created_at"] == decisions[5]["created_at"]
    seqs = [d["seq"] for d in decisions]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    # (no order is read from created_at across transactions: the server's wall clock may step
    # back between them; seq is the order)

    # re-recording the same decisions creates nothing and renumbers nothing
    runner.write_many([mem.store.record_decisions(qid, [_row(mem, qid, insight, ops[0], 0)])])
    assert [d["seq"] for d in mem.history(insight).decisions] == seqs

"""Export and import of a namespace on the real Neo4j (:mod:`graphmem.lifecycle`), proven by
comparing the two namespaces node by node and recall by recall.

One namespace holds all four memories from the bundled real data (LoCoMo conv-26 turns in state
and associative memory, ScienceWorld gold tasks with an exploration in experience memory, FEVER
claims replayed as insight feedback), an audit record, and times in a named zone (a DST fold)
and at a negative offset. Its export imported into another namespace of the same server gives
the same nodes and relationships (every property, vectors bit for bit, times to the nanosecond
with their zone or offset, every id-holding property pointing at the node that corresponds),
the same counts and the same recall of every memory; re-adding its messages there stores
nothing. An import interrupted after some batches and run again completes without a duplicate;
an import under the same name after the namespace was deleted gives back the very same ids. A
newer format version, a damaged line, a truncated file and a namespace that holds nodes are
refused before anything is written.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from reliability import TEST_CYPHER
from typer.testing import CliRunner

from graphmem import datasets
from graphmem.conversations import Conversation, read_conversations
from graphmem.errors import FormatVersionError, InputFormatError, NamespaceNotEmptyError
from graphmem.experience import read_trajectories
from graphmem.facade import GraphMemory
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.insight import replay
from graphmem.lifecycle import import_namespace
from graphmem.lifecycle.rekey import NODE_REFERENCES, RELATIONSHIP_REFERENCES, suffix_id
from graphmem.lifecycle.values import encode_value

QUESTIONS = ["When did Caroline go to the LGBTQ support group?", "What does Melanie paint?",
             "What is Caroline's identity?", "heat some water in the kettle",
             "Telemundo is an English-language television network."]
BERLIN_FOLD = "2023-10-29T02:30:00.123456789+01:00[Europe/Berlin]"
MINUS_OFFSET = "2024-02-29T23:59:59.000000001-05:30"


def _turns() -> Conversation:
    [conv] = read_conversations(datasets.resolve("locomo"), "locomo")[:1]
    return Conversation(id=conv.id, turns=conv.turns[:60], speakers=conv.speakers)


def _exploration(expert):
    steps = [expert.steps[0], type(expert.steps[0])(action="focus on agent",
                                                    observation="You focus on the agent."),
             *expert.steps[1:4]]
    return expert.model_copy(update={"kind": "exploration", "reward": 0.0, "steps": steps})


@pytest.fixture(scope="module")
def tq(runner: QueryRunner) -> QueryRunner:
    return QueryRunner(runner.driver, CypherRegistry.load(TEST_CYPHER), database=runner.database,
                       bookmark_manager=runner.bookmark_manager)


@pytest.fixture(scope="module")
def source(runner, embedder, tq, sample_data):
    """A namespace holding all four memories (see the module docstring)."""
    mem = GraphMemory(runner, embedder, f"test-exim-src-{uuid.uuid4().hex[:10]}")
    conv = _turns()
    mem.state.ingest([conv])
    mem.associative.ingest([conv])
    experts = read_trajectories(sample_data / "scienceworld" / "sciworld_gold_train.jsonl",
                                limit=6)
    mem.experience.ingest(experts, explorations=[_exploration(experts[0])], k=3, tau=0.5)
    replay(mem.insight, "fever", 10, data_root=sample_data)
    runner.write("core/record_audit", namespace=mem.namespace, id=str(uuid.uuid4()),
                 action="forget", actor="dpo@example.org", selectors="{}", counts="{}")
    [insight] = [r for r in tq.read("read_namespace_graph", namespace=mem.namespace)
                 if "Insight" in r["labels"]][:1]
    [task] = [r for r in tq.read("read_namespace_graph", namespace=mem.namespace)
              if "Task" in r["labels"]][:1]
    assert tq.write("set_created_at", namespace=mem.namespace, id=insight["id"],
                    at=BERLIN_FOLD)[0]["changed"] == 1
    assert tq.write("set_created_at", namespace=mem.namespace, id=task["id"],
                    at=MINUS_OFFSET)[0]["changed"] == 1
    yield mem
    mem.delete_namespace()


@pytest.fixture(scope="module")
def exported(source, tmp_path_factory) -> tuple[Path, Any]:
    path = tmp_path_factory.mktemp("export") / "source.jsonl"
    seen: list[int] = []
    report = source.export_namespace(path, progress=seen.append)
    assert sum(seen) == sum(report.nodes.values()) and report.skipped == {}
    return path, report


@pytest.fixture
def target(runner, embedder):
    mem = GraphMemory(runner, embedder, f"test-exim-dst-{uuid.uuid4().hex[:10]}")
    yield mem
    mem.delete_namespace()


# ----------------------------------------------------------------------------- comparisons
def _value(value: Any) -> Any:
    return json.dumps(encode_value(value), sort_keys=True)


def _graph(tq, namespace: str, skip_ids: set[str] = frozenset()) -> tuple[Counter, Counter]:
    """Every node and relationship of ``namespace`` as a multiset of signatures: label, every
    property (temporal ones as Neo4j's text), with each id-holding property replaced by the
    plain signature of the node it names; ids and ``ns_token`` left out."""
    rows = [r for r in tq.read("read_namespace_texts", namespace=namespace)
            if r["id"] not in skip_ids]
    refs = set(NODE_REFERENCES) | {"sort_key", "ns_token", "id", "namespace"}

    def plain(row: dict) -> str:
        times = dict(row["times"])
        props = {k: times.get(k) or _value(v) for k, v in row["props"].items() if k not in refs}
        return json.dumps([row["labels"], props], sort_keys=True)

    base = {r["id"]: plain(r) for r in rows}
    assert len(base) == len(rows)
    nodes: Counter = Counter()
    for row in rows:
        named = {k: base.get(row["props"][k], "missing") for k in NODE_REFERENCES
                 if isinstance(row["props"].get(k), str)}
        chain = suffix_id(row["props"].get("sort_key"))
        if chain:
            named["sort_key"] = [row["props"]["sort_key"][:-len(chain)], base.get(chain, "missing")]
        nodes[json.dumps([base[row["id"]], named], sort_keys=True)] += 1
    rels: Counter = Counter()
    for row in tq.read("read_relationship_texts", namespace=namespace):
        times = dict(row["times"])
        props = {k: (base.get(v, "missing") if k in RELATIONSHIP_REFERENCES else
                     times.get(k) or _value(v)) for k, v in row["props"].items()}
        rels[json.dumps([row["type"], base[row["start"]], base[row["end"]], props],
                        sort_keys=True)] += 1
    return nodes, rels


def _pairs(tq, source: str, target: str) -> dict[str, str]:
    """Source node id -> target node id, for nodes whose plain signature is unique."""
    def index(ns: str) -> dict[str, str]:
        seen: dict[str, list[str]] = {}
        for row in tq.read("read_namespace_texts", namespace=ns):
            props = {k: _value(v) for k, v in row["props"].items()
                     if k not in (*NODE_REFERENCES, "sort_key", "ns_token", "id", "namespace")}
            sig = json.dumps([row["labels"], props], sort_keys=True)
            seen.setdefault(sig, []).append(row["id"])
        return {sig: ids[0] for sig, ids in seen.items() if len(ids) == 1}

    a, b = index(source), index(target)
    return {a[sig]: b[sig] for sig in a if sig in b}


def _recalls(mem: GraphMemory, question: str, pairs: dict[str, str] | None = None) -> dict:
    """Each memory's items (score, source ids, text) and the fused items (memory, text,
    fusion key), node ids of the source translated by ``pairs``."""
    tr = (lambda x: x) if pairs is None else (lambda x: pairs.get(x, x))
    out: dict[str, list] = {}
    for name in ("state", "associative", "insight", "experience"):
        out[name] = [(i.score, [tr(s) for s in i.source_ids], i.text)
                     for i in mem.memory(name).recall(question, k=10).items]
    out["fused"] = [(i.memory, i.text, i.fusion_key if i.fusion_key.startswith("turn:")
                     else tr(i.fusion_key)) for i in mem.recall(question, k=10).items]
    return out


def _close(a: float, b: float) -> bool:
    # the same stored vectors scored through another cache layout differ in the last float32 bits
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def _ties(items: list) -> list:
    """``items`` (score first) as runs of equal score (to float32 rounding), each run sorted:
    the ranking without the order among items of equal score (which ranks them by node id)."""
    runs: list = []
    for item in items:
        if runs and _close(runs[-1][0], item[0]):
            runs[-1][1].append(item[1:])
        else:
            runs.append((item[0], [item[1:]]))
    return [sorted(rest) for _, rest in runs]


def _same_ranking(got: list, expected: list, exact_order: bool) -> bool:
    """Equal items in the same order (or, unless ``exact_order``, the same runs of equal
    score), scores equal to float32 rounding; True when even the order is the same."""
    if exact_order:
        assert [x[1:] for x in got] == [x[1:] for x in expected]
    else:
        assert _ties(got) == _ties(expected)
    assert all(_close(x[0], y[0]) for x, y in zip(got, expected, strict=True))
    return [x[1:] for x in got] == [x[1:] for x in expected]


def _same_answers(got: dict, expected: dict, exact_order: bool = False) -> None:
    """Every memory ranks the same items with the same scores. In another namespace, items of
    equal score may come in another order (insight memory orders them by node id, and the
    ids differ); the fused ranking is then compared without that memory's items."""
    names = ("state", "associative", "insight", "experience")
    reordered = {n for n in names if not _same_ranking(got[n], expected[n], exact_order)}
    assert [x for x in got["fused"] if x[0] not in reordered] == \
        [x for x in expected["fused"] if x[0] not in reordered]


# ----------------------------------------------------------------------------- tests
def test_round_trip_into_another_namespace(source, exported, target, tq) -> None:
    path, export = exported
    assert export.nodes["AuditRecord"] == 1 and export.nodes["Event"] == 60
    assert {"EDITS", "TARGETS", "SUPPORTS", "LEADS_TO", "NEXT_TURN", "GROUPS"} <= set(
        export.relationships)
    seen: list[int] = []
    report = target.import_namespace(path, progress=seen.append)
    assert report.source_namespace == source.namespace and report.resumed_from == 0
    assert sum(seen) == report.lines == sum(export.nodes.values()) + sum(
        export.relationships.values())
    assert report.nodes == export.nodes and report.relationships == export.relationships
    assert target.counts() == source.counts()
    assert target.relationship_counts() == source.relationship_counts()
    # node by node: every property, vectors and times exact, every reference to its partner
    assert _graph(tq, target.namespace, {report.audit_id}) == _graph(tq, source.namespace)
    times = {t for r in tq.read("read_namespace_texts", namespace=target.namespace)
             for _, t in r["times"]}
    assert {BERLIN_FOLD, MINUS_OFFSET} <= times
    # ids: re-derived for every node graphmem derives from a key the node holds
    assert set(report.rederived) >= {"Event", "Episode", "State", "Topic", "Cue", "Tag", "Task",
                                     "ConversationLock", "Timeline", "Person", "Theme", "Step",
                                     "Insight", "ControllerDecision", "DecisionGraph"}
    assert set(report.mapped) <= {"Query", "Action", "EditOperation", "AuditRecord"}
    # the same answers from every memory
    pairs = _pairs(tq, source.namespace, target.namespace)
    for question in QUESTIONS:
        _same_answers(_recalls(target, question), _recalls(source, question, pairs))
    # the audit trail: the source's record, then this import's
    records = target.audit_records()
    assert [r["action"] for r in records] == ["import", "forget"]
    assert records[0]["counts"]["complete"] is True
    assert records[0]["selectors"]["source_namespace"] == source.namespace
    # re-adding imported messages stores nothing: they are recognised as stored
    counts = target.counts(), target.relationship_counts()
    turns = _turns().turns[:12]
    added = target.add([{"id": t.source_id, "role": t.speaker, "content": t.text,
                         "timestamp": t.timestamp} for t in turns], conversation_id=_turns().id)
    assert {name: (r.created, r.skipped) for name, r in added.items()} == {
        "state": ({}, {"turn": 12}), "associative": ({}, {"turn": 12})}
    assert (target.counts(), target.relationship_counts()) == counts
    # a second run of a finished import writes nothing
    again = target.import_namespace(path)
    assert again.already_complete and again.nodes == {} and target.counts() == counts[0]


def test_an_interrupted_import_resumes_without_duplicates(source, exported, target, tq) -> None:
    path, export = exported
    committed: list[int] = []

    def stop_after_three(n: int) -> None:
        committed.append(n)
        if len(committed) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_namespace(target, path, progress=stop_after_three, batch=250)
    held = sum(target.counts()["insight"].values()) + sum(target.counts()["experience"].values())
    assert committed == [250, 250, 250] and 0 < held
    with pytest.raises(NamespaceNotEmptyError):  # another file is refused meanwhile
        other = path.with_name("other.jsonl")
        other.write_text(path.read_text().replace(export.export_id, "f" * 32, 1))
        target.import_namespace(other)
    resumed: list[int] = []
    report = target.import_namespace(path, progress=resumed.append)
    assert report.resumed_from == 750 and resumed[0] == 750 and sum(resumed) == report.lines
    assert target.counts() == source.counts()
    assert target.relationship_counts() == source.relationship_counts()
    duplicates = tq.read("count_relationships", namespace=target.namespace)
    assert duplicates == tq.read("count_relationships", namespace=source.namespace)
    assert _graph(tq, target.namespace, {report.audit_id}) == _graph(tq, source.namespace)


def test_same_name_import_gives_back_the_same_ids(runner, embedder, namespace, tq,
                                                  tmp_path) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    conv = Conversation(id="chat", turns=_turns().turns[:30], speakers=_turns().speakers)
    mem.state.ingest([conv])
    mem.associative.ingest([conv])
    before = _graph(tq, namespace)
    ids = sorted(r["id"] for r in tq.read("read_namespace_texts", namespace=namespace))
    recalled = [_recalls(mem, q) for q in QUESTIONS[:3]]
    mem.export_namespace(tmp_path / "chat.jsonl")
    mem.delete_namespace()
    assert tq.read("count_any_namespace", namespace=namespace)[0]["nodes"] == 0
    report = mem.import_namespace(tmp_path / "chat.jsonl")
    assert report.rederived == {} and report.mapped == {}
    after = sorted(r["id"] for r in tq.read("read_namespace_texts", namespace=namespace)
                   if r["id"] != report.audit_id)
    assert after == ids and _graph(tq, namespace, {report.audit_id}) == before
    for question, expected in zip(QUESTIONS[:3], recalled, strict=True):
        _same_answers(_recalls(mem, question), expected, exact_order=True)
    mem.delete_namespace()


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def test_bad_files_and_a_namespace_with_nodes_are_refused_before_writing(
        source, exported, target, tmp_path) -> None:
    path, _ = exported
    lines = _lines(path)
    newer = tmp_path / "newer.jsonl"
    newer.write_text(lines[0].replace('"version":1', '"version":2') + "".join(lines[1:]))
    with pytest.raises(FormatVersionError, match=r"newer\.jsonl: format version 2 .* reads "
                                                 r"\(version 1\)"):
        target.import_namespace(newer)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(lines[:4]) + lines[4][:-20] + "\n" + "".join(lines[5:]))
    with pytest.raises(InputFormatError, match=r"damaged\.jsonl: line 5: not JSON"):
        target.import_namespace(damaged)
    label = tmp_path / "label.jsonl"
    node = json.loads(lines[6])
    label.write_text("".join(lines[:6]) + json.dumps({**node, "labels": ["Admin"]}) + "\n"
                     + "".join(lines[7:]))
    with pytest.raises(InputFormatError, match=r"line 7: label 'Admin' is not in graphmem's "
                                               r"schema"):
        target.import_namespace(label)
    at = next(i for i, line in enumerate(lines) if '"kind":"relationship"' in line)
    rel = json.loads(lines[at])
    kind = tmp_path / "kind.jsonl"
    kind.write_text("".join(lines[:at]) + json.dumps({**rel, "type": "OWNS"}) + "\n"
                    + "".join(lines[at + 1:]))
    with pytest.raises(InputFormatError, match=rf"line {at + 1}: relationship .*OWNS.* is not in "
                                               r"graphmem's schema"):
        target.import_namespace(kind)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:-1]))
    with pytest.raises(InputFormatError, match=rf"cut\.jsonl: line {len(lines) - 1}: the file "
                                               r"ends without its end line"):
        target.import_namespace(cut)
    assert sum(n for per in target.counts().values() for n in per.values()) == 0
    assert target.audit_records() == []
    with pytest.raises(NamespaceNotEmptyError, match=rf"namespace '{source.namespace}' already "
                                                     r"holds \d+ nodes"):
        source.import_namespace(path)


def test_the_command_line(source, exported, target, tmp_path, cli_env) -> None:
    from graphmem.cli.main import app

    file = tmp_path / "cli.jsonl"
    out = CliRunner().invoke(app, ["export", "-n", source.namespace, str(file), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["nodes"] == exported[1].nodes
    out = CliRunner().invoke(app, ["import", "-n", target.namespace, str(file), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["lines"] == sum(exported[1].nodes.values()) + sum(
        exported[1].relationships.values())
    again = CliRunner().invoke(app, ["import", "-n", target.namespace, str(file)])
    assert again.exit_code == 0 and "already imported" in " ".join(again.stdout.split())
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(_lines(file)[:-1]))
    refused = CliRunner().invoke(app, ["import", "-n", f"{target.namespace}-x", str(broken)])
    assert refused.exit_code == 2
    assert "the file ends without its end line" in " ".join(refused.output.split())
    notes = tmp_path / "notes.txt"
    notes.write_text("just some notes\nnot an export\n")
    for path, message in ((tmp_path, "is a folder"), (notes, "notes.txt: line 1: not JSON")):
        refused = CliRunner().invoke(app, ["import", "-n", f"{target.namespace}-x", str(path)])
        assert refused.exit_code == 2 and message in " ".join(refused.output.split()), \
            refused.output
    empty = CliRunner().invoke(app, ["export", "-n", f"{target.namespace}-none",
                                     str(tmp_path / "none.jsonl")])
    assert empty.exit_code == 0
    assert f"namespace '{target.namespace}-none' holds nothing" in " ".join(empty.stderr.split())


def test_a_forgotten_namespace_keeps_its_audit_trail_from_an_import(runner, embedder, exported,
                                                                    namespace) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    nothing = mem.forget(conversation_id="chat-gone", actor="dpo@example.org")
    assert nothing.audit_id == "" and mem.audit_records() == []  # it holds nothing at all
    mem.add([{"id": "m1", "role": "user", "content": "I live in Porto."}],
            conversation_id="chat-gone")
    report = mem.forget(conversation_id="chat-gone", actor="dpo@example.org")
    assert report.messages == 1 and len(mem.audit_records()) == 1
    assert sum(n for per in mem.counts().values() for n in per.values()) == 0
    with pytest.raises(NamespaceNotEmptyError, match=rf"namespace '{namespace}' holds only its "
                                                     r"audit trail \(1 audit record of earlier forget"):
        mem.import_namespace(exported[0])
    assert [r["action"] for r in mem.audit_records()] == ["forget"]

"""Retention against a real Neo4j (graphmem.agent.retention): archived units leave every recall
path -- fused, state, associative, the retrievers; the database's full-text, exact-scan and
vector-index paths and the in-process cache, session neighbours included -- and come back with
include_archived; a unit a current state rests on is kept; keep_last keeps exactly the newest N
(plus those); a second run archives nothing; archiving deletes nothing and leaves other
namespaces alone."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from typer.testing import CliRunner

from graphmem.facade import GraphMemory
from graphmem.retrieval import HybridSearch
from graphmem.retrieval.text import archived_token, namespace_token
from graphmem.langchain.retrievers import (AssociativeRetriever, CombinedGraphMemoryRetriever,
                                 StateRetriever)
from graphmem.retrieval.vectors import vector_cache_of
from reliability import other_namespace, snapshot, tq  # noqa: F401

#: Old turns (200 days before the test) and recent ones (2 days before), one conversation.
OLD = [("o1", "Alice", "I live in Porto now, close to the river."),
       ("o2", "Bob", "Is the teal kayak called Zephyrine still moored in Faro?"),
       ("o3", "Alice", "I sail my boat Mohra every Saturday."),
       ("o4", "Bob", "Do you still collect vinyl records from Osaka?"),
       ("o5", "Alice", "I work as a nurse at the city hospital."),
       ("o6", "Bob", "Did the glassblower in Murano finish your green vase?")]
RECENT = [("r1", "Alice", "I moved to Lisbon last week."),
          ("r2", "Bob", "How is the new flat?"),
          ("r3", "Alice", "The flat is bright and I love the tram outside."),
          ("r4", "Bob", "Are you still cooking on Sundays?"),
          ("r5", "Alice", "I bake sourdough bread for my neighbours every Sunday."),
          ("r6", "Bob", "What about the choir?"),
          ("r7", "Alice", "I sing alto in a choir near the cathedral."),
          ("r8", "Bob", "Nice, and work?"),
          ("r9", "Alice", "I teach swimming to children at the municipal pool."),
          ("r10", "Bob", "See you at the market on Friday.")]
#: Questions whose answer is one old question of Bob (no state rests on a question).
ASKED = {"o2": "Where is the teal kayak Zephyrine moored?",
         "o4": "Who collects vinyl records from Osaka?",
         "o6": "Which glassblower in Murano made the green vase?"}


def _messages(turns, start: datetime, step=timedelta(minutes=1)) -> list[dict]:
    return [{"id": sid, "role": role, "content": text, "timestamp": (start + i * step).isoformat()}
            for i, (sid, role, text) in enumerate(turns)]


def _units(tq, namespace: str, label: str) -> dict[str, dict]:
    """``{source id: properties}`` of the namespace's units of ``label``."""
    out = {}
    for row in tq.read("read_nodes", namespace=namespace, label=label):
        props = row["props"]
        out[props["source_ids"][0] if label == "Event" else props["source_id"]] = props
    return out


def _pinned(runner, namespace: str, events: dict[str, dict]) -> set[str]:
    """Source ids of the events that evidence a current state (``state/evidenced_states``)."""
    by_id = {props["id"]: sid for sid, props in events.items()}
    rows = runner.read("state/evidenced_states", namespace=namespace, event_ids=list(by_id))
    return {by_id[r["event_id"]] for r in rows if r["current"]}


def _archived(tq, namespace: str, label: str) -> set[str]:
    return {sid for sid, p in _units(tq, namespace, label).items() if p.get("archived_at")}


def _found(result) -> list[str]:
    return [sid for item in result.items for sid in item.source_ids]


def _doc_ids(docs) -> list[str]:
    return [sid for doc in docs for sid in doc.metadata["source_ids"]]


def _every_path(mem: GraphMemory, question: str, **options) -> dict[str, list[str]]:
    """The source ids each recall path returns for ``question`` (k = 10, best first)."""
    retrievers = {"state_retriever": StateRetriever, "associative_retriever": AssociativeRetriever,
                  "combined_retriever": CombinedGraphMemoryRetriever}
    out = {"fused": _found(mem.recall(question, k=10, **options)),
           "state": _found(mem.state.recall(question, k=10, **options)),
           "associative": _found(mem.associative.recall(question, k=10, **options))}
    for name, cls in retrievers.items():
        kwargs = {"search_kwargs": {"include_archived": True}} if options else {}
        out[name] = _doc_ids(cls(graph_memory=mem, k=10, **kwargs).invoke(question))
    return out


def _candidate_sets(runner, embedder, namespace: str, question: str, **search) -> dict:
    """Per label and engine path: (dense_mode, the source ids of every unit of S)."""
    out = {}
    for label in ("Event", "Episode"):
        for name, engine in (("default", HybridSearch(runner, label)),
                             ("index", HybridSearch(runner, label, exact_limit=1, dense_k=3))):
            row = engine.fetch(namespace, question, embedder.embed_query(question), **search)
            out[label, name] = (row["dense_mode"],
                                {sid for u in row["units"] for sid in u["source_ids"]})
    return out


@pytest.fixture
def retained(runner, embedder, tq, namespace):  # noqa: F811
    """``namespace`` holding OLD and RECENT in conversation chat-1, its vector cache loaded,
    then archived by ``max_age_days=30``: ``(mem, report, pinned old turns, counts before)``."""
    mem = GraphMemory(runner, embedder, namespace)
    now = datetime.now(timezone.utc)
    mem.add(_messages(OLD, now - timedelta(days=200)) + _messages(RECENT, now - timedelta(days=2)),
            conversation_id="chat-1")
    vector_cache_of(runner).clear()
    for question in list(ASKED.values()) * 3:                 # loaded on the second miss
        for label in ("Event", "Episode"):
            HybridSearch(runner, label).fetch(namespace, question, embedder.embed_query(question))
    for sid, question in ASKED.items():                          # found before archiving
        assert sid in _found(mem.state.recall(question, k=3))
    pinned = _pinned(runner, namespace, _units(tq, namespace, "Event"))
    before = (mem.counts(), mem.relationship_counts())
    assert mem.set_retention(max_age_days=30).max_age_days == 30
    report = mem.retain(batch_size=2)
    yield mem, report, pinned & {sid for sid, _, _ in OLD}, before
    mem.delete_namespace()


def test_the_age_rule_archives_old_units_but_those_a_current_state_rests_on(
        retained, runner, tq, namespace) -> None:
    mem, report, kept, (counts, relationships) = retained
    old = {sid for sid, _, _ in OLD}
    assert kept and set(ASKED) <= old - kept                      # questions make no state
    expected = old - kept
    assert _archived(tq, namespace, "Event") == expected
    assert _archived(tq, namespace, "Episode") == expected        # the turns of the events kept
    assert report.archived == {"Event": len(expected), "Episode": len(expected)}
    assert report.kept == {"Event": len(kept), "Episode": len(kept)}
    assert report.by_rule == {"max_age_days": report.archived,
                              "keep_last": {"Event": 0, "Episode": 0}}
    assert report.batches == 2 * ((len(expected) + 1) // 2) and report.audit_id
    for label in ("Event", "Episode"):
        for sid, props in _units(tq, namespace, label).items():
            token = archived_token(namespace) if sid in expected else namespace_token(namespace)
            assert props["ns_token"] == token, (label, sid)
    # archive is not delete: every node, property and edge is still there
    assert (mem.counts(), mem.relationship_counts()) == (counts, relationships)
    assert [m.id for m in mem.messages("chat-1")] == [sid for sid, _, _ in OLD + RECENT]
    [audit] = [a for a in mem.audit_records() if a["action"] == "retain"]
    assert audit["counts"]["archived"] == report.archived
    assert audit["selectors"]["max_age_days"] == 30
    # idempotent: a second run archives nothing new and writes no audit record
    again = mem.retain()
    assert again.archived == {"Event": 0, "Episode": 0} and again.batches == 0
    assert again.kept == report.kept and again.audit_id == ""
    assert len([a for a in mem.audit_records() if a["action"] == "retain"]) == 1


@pytest.mark.parametrize("cache", ["1", "0"])
def test_archived_units_leave_every_recall_path_and_come_back_when_asked(
        retained, runner, embedder, namespace, monkeypatch, cache) -> None:
    mem, _, kept, _ = retained
    monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", cache)
    archived = {sid for sid, _, _ in OLD} - kept
    for sid, question in ASKED.items():
        for path, found in _every_path(mem, question).items():
            assert found and not set(found) & archived, (cache, path, question, found)
        # every candidate side and the session neighbours: no archived unit in S
        for (label, engine), (mode, units) in _candidate_sets(runner, embedder, namespace,
                                                              question).items():
            assert units and not units & archived, (cache, label, engine, units)
            if cache == "1" and engine == "default":
                assert mode == "cache", (label, mode)              # re-read at the new token
            elif engine == "default":
                assert mode == "exact"
            else:
                assert mode in ("vector_index", "exact_fallback", "cache")
        # asked for, the archived turn is the best answer again, on every path
        for path, found in _every_path(mem, question, include_archived=True).items():
            assert sid in found[:3], (cache, path, question, found)
        for (label, engine), (_, units) in _candidate_sets(
                runner, embedder, namespace, question, include_archived=True).items():
            assert sid in units, (cache, label, engine)


def test_the_vector_cache_sees_an_archive_at_once(retained, runner, embedder,
                                                  namespace) -> None:
    _, report, kept, _ = retained
    archived = {sid for sid, _, _ in OLD} - kept
    for label in ("Event", "Episode"):
        search = HybridSearch(runner, label)
        question = ASKED["o2"]
        search.fetch(namespace, question, embedder.embed_query(question))
        entry = vector_cache_of(runner).get((label, namespace, embedder.dimension))
        assert entry is not None and entry.complete_lexicon and len(entry.stamps) == 16
        # archived units stay in the entry and its statistics, masked from its two top-k lists
        assert len(entry.archived) == len(archived) and entry.stats[0] == 16
        ids, _ = entry.top(embedder.embed_query(question), 16)
        assert len(ids) == 16 - len(archived) and not set(ids) & entry.archived
        assert len(entry.top(embedder.embed_query(question), 16, include_archived=True)[0]) == 16


def test_keep_last_keeps_exactly_the_newest_n_plus_pinned(
        runner, embedder, tq, namespace, other_namespace, monkeypatch) -> None:  # noqa: F811
    now = datetime.now(timezone.utc) - timedelta(days=1)
    long = _messages(OLD + RECENT, now - timedelta(hours=3))            # 16 turns, in order
    short = [dict(m, id=f"s{i}") for i, m in enumerate(_messages(RECENT[:3], now))]
    mem, other = GraphMemory(runner, embedder, namespace), GraphMemory(runner, embedder,
                                                                        other_namespace)
    for target in (mem, other):
        target.add(long, conversation_id="chat-long")
        target.add(short, conversation_id="chat-short")
    other.set_retention(max_age_days=365)
    foreign = snapshot(tq, other_namespace)
    assert mem.retention() is None and mem.retain().policy is None
    pinned = _pinned(runner, namespace, _units(tq, namespace, "Event"))
    try:
        assert mem.set_retention(keep_last=4).keep_last == 4
        preview = mem.retain(dry_run=True)
        assert _archived(tq, namespace, "Event") == set()              # a dry run writes nothing
        report = mem.retain(batch_size=3)
        newest = {m["id"] for m in long[-4:]}
        expected = {m["id"] for m in long} - newest - pinned
        assert pinned - newest                                        # an older unit is pinned
        for label in ("Event", "Episode"):
            assert _archived(tq, namespace, label) == expected, label
            live = set(_units(tq, namespace, label)) - expected
            assert live == newest | (pinned & {m["id"] for m in long}) | {m["id"] for m in short}
        assert report.archived == preview.archived == {"Event": len(expected),
                                                       "Episode": len(expected)}
        assert report.by_rule["keep_last"] == report.archived
        assert report.kept["Event"] == len(pinned - newest - {m["id"] for m in short})
        assert mem.retain().archived == {"Event": 0, "Episode": 0}   # idempotent
        assert snapshot(tq, other_namespace) == foreign               # another tenant untouched
        assert other.retention().max_age_days == 365
        assert mem.set_retention() is None and mem.retention() is None  # cleared
    finally:
        mem.delete_namespace()
        other.delete_namespace()
    assert other.retention() is None and other.audit_records() == []


def test_the_cli_sets_the_policy_and_applies_it(runner, embedder, tq, namespace,
                                                cli_env) -> None:
    from graphmem.cli.main import app

    mem = GraphMemory(runner, embedder, namespace)
    mem.add(_messages(RECENT, datetime.now(timezone.utc) - timedelta(hours=1)),
            conversation_id="chat-cli")
    try:
        preview = CliRunner().invoke(app, ["retain", "-n", namespace, "--keep-last", "3",
                                           "--dry-run", "--json"])
        assert preview.exit_code == 0, preview.output
        would = json.loads(preview.stdout)
        assert would["dry_run"] and would["archived"]["Event"] > 0 and mem.retention() is None
        done = CliRunner().invoke(app, ["retain", "-n", namespace, "--keep-last", "3", "--json"])
        assert done.exit_code == 0, done.output
        report = json.loads(done.stdout)
        assert report["archived"] == would["archived"] and report["audit_id"]
        assert mem.retention().keep_last == 3
        assert len(_archived(tq, namespace, "Event")) == report["archived"]["Event"]
        again = CliRunner().invoke(app, ["retain", "-n", namespace])    # the stored policy
        assert again.exit_code == 0 and "archived 0 units" in " ".join(again.stdout.split())
        gone = _archived(tq, namespace, "Event")
        for group in ("state", "associative"):
            args = [group, "recall", "Where does Alice live?", "-n", namespace, "-k", "20",
                    "--json"]
            found = {}
            for extra in ([], ["--include-archived"]):
                out = CliRunner().invoke(app, [*args, *extra])
                assert out.exit_code == 0, out.output
                found[bool(extra)] = {s for i in json.loads(out.stdout)["items"]
                                      for s in i["source_ids"]}
            assert found[False] and not found[False] & gone, group
            assert found[True] & gone, group
        bad = CliRunner().invoke(app, ["retain", "-n", namespace, "--max-age-days", "0"])
        assert bad.exit_code == 2 and "max_age_days" in bad.output
    finally:
        mem.delete_namespace()

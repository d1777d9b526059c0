"""State memory batch ingest against real Neo4j: every Event is a retrieval unit of the engine
(the properties of ``unit_rows``, window-text vectors, NEXT_TURN), the graph is the same whether
a conversation arrives at once or message by message, late and interleaved turns relink their
stored session and chain neighbours, and concurrent writers of one topic and session lose no
update."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import numpy as np
from reliability import MemoEmbedder, tq  # noqa: F401

from graphmem.conversations import Conversation, Turn, read_locomo
from graphmem.names import node_id
from graphmem.retrieval import HybridSearch, unit_rows, window_texts
from graphmem.state import StateMemory
from graphmem.state.people import resolve_people
from graphmem.state.people_store import person_id

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
VOLATILE = {"created_at", "chain_version", "namespace", "ns_token", "vector_stamp"}  # stamp: random per write
ID_PROPS = {"id", "topic_id", "prev_id", "next_id"}


def _slice(sample_data, n: int) -> Conversation:
    [conv] = read_locomo(sample_data / "locomo" / "locomo-dev.json")[:1]
    return conv.model_copy(update={"turns": conv.turns[:n]})


def _keys(namespace: str, conv: Conversation, runner) -> dict[str, str]:
    """Node id -> a namespace-free name (event / state by source id, topic by key)."""
    out = {}
    for t in conv.turns:
        out[node_id(namespace, "event", conv.id, t.source_id)] = f"E:{t.source_id}"
        out[node_id(namespace, "state", conv.id, t.source_id)] = f"S:{t.source_id}"
    for topic in runner.read("state/list_topics", namespace=namespace, conversation=conv.id):
        out[topic["id"]] = f"T:{topic['key']}"
    for person in resolve_people(conv.turns):  # MENTIONS ends
        out[person_id(namespace, conv.id, person.key)] = f"P:{person.key}"
    return out


def _graph(tq, runner, namespace: str, conv: Conversation) -> tuple[dict, set, dict]:
    """(nodes by name with id properties translated, relationships as (type, from, to) except
    RELATED_EVENT, vectors by node name)."""
    names = _keys(namespace, conv, runner)
    nodes, vectors = {}, {}
    for label in ("Topic", "Event", "State"):
        for row in tq.read("read_nodes", namespace=namespace, label=label):
            props = {k: v for k, v in row["props"].items() if k not in VOLATILE}
            vectors[names[row["id"]]] = np.asarray(props.pop("embedding"))
            if "sort_key" in props:  # time | position | event id
                props["sort_key"] = props["sort_key"].rsplit("|", 1)[0]
            nodes[names[row["id"]]] = {k: (names.get(v, v) if k in ID_PROPS else v)
                                       for k, v in props.items()}
    rels = {(r["type"], names[r["source"]], names[r["target"]])
            for r in tq.read("read_relationships", namespace=namespace)
            if r["type"] != "RELATED_EVENT"}
    return nodes, rels, vectors


def test_unit_properties_and_vectors_match_unit_rows(runner, embedder, tq, namespace, sample_data):
    conv = _slice(sample_data, 40)
    memo = MemoEmbedder(embedder)
    StateMemory(runner, memo, namespace).ingest([conv])
    ids = [node_id(namespace, "event", conv.id, t.source_id) for t in conv.turns]
    expected = unit_rows(conv.turns, memo.embed_documents(window_texts(conv.turns)),
                         namespace=namespace, ids=ids)
    stored = {r["id"]: r["props"] for r in tq.read("read_nodes", namespace=namespace, label="Event")}
    for eid, row in zip(ids, expected, strict=True):
        props = stored[eid]
        for key in ("lexical_text", "lexical_terms", "lexical_length", "ns_token", "is_cue",
                    "is_smalltalk", "prev_id", "next_id"):
            assert props.get(key) == row[key], (eid, key)
        assert np.allclose(props["embedding"], row["embedding"], atol=1e-6)
    rels = {(r["source"], r["target"]) for r in tq.read("read_relationships", namespace=namespace)
            if r["type"] == "NEXT_TURN"}
    assert rels == {(r["prev_id"], i) for i, r in zip(ids, expected, strict=True) if r["prev_id"]}
    # the heuristic path encodes nothing but the window texts: one text per turn
    assert len(memo.memo) == 40
    # the engine ranks the state memory's events
    question = "When did Caroline go to the LGBTQ support group?"
    hits = HybridSearch(runner, "Event").search(namespace, question, embedder.embed_query(question), k=5)
    assert "D1:3" in [s for h in hits for s in h.source_ids]


def _one_by_one(mem: StateMemory, conv: Conversation) -> dict[str, int]:
    relations: dict[str, int] = {}
    for turn in conv.turns:
        report = mem.ingest([conv.model_copy(update={"turns": [turn]})])
        for k, v in report.details["state_relations"].items():
            relations[k] = relations.get(k, 0) + v
    return relations


UNIT_PROPS = ("text", "speaker", "session", "seq", "source_ids", "occurred_at", "lexical_text",
              "lexical_terms", "lexical_length", "is_cue", "is_smalltalk", "prev_id", "next_id")


def test_units_are_the_same_at_once_or_message_by_message(runner, embedder, tq, namespace,
                                                          sample_data):
    """Free text: every Event unit (properties, window vector, NEXT_TURN) is the same; which
    topic a turn joins may differ, since a turn is placed by its vector when it arrives (its
    window then ends with it)."""
    conv = _slice(sample_data, 24)
    memo = MemoEmbedder(embedder)
    whole = namespace + "-whole"
    try:
        StateMemory(runner, memo, whole).ingest([conv])
        _one_by_one(StateMemory(runner, memo, namespace), conv)
        nodes_a, rels_a, vecs_a = _graph(tq, runner, whole, conv)
        nodes_b, rels_b, vecs_b = _graph(tq, runner, namespace, conv)
    finally:
        runner.write("core/delete_namespace", namespace=whole)
    events = sorted(k for k in nodes_a if k.startswith("E:"))
    assert len(events) == 24 and events == sorted(k for k in nodes_b if k.startswith("E:"))
    for name in events:
        assert {p: nodes_a[name].get(p) for p in UNIT_PROPS} == \
            {p: nodes_b[name].get(p) for p in UNIT_PROPS}, name
        assert np.allclose(vecs_a[name], vecs_b[name], atol=1e-5), name
    turns_a = {r for r in rels_a if r[0] == "NEXT_TURN"}
    assert turns_a == {r for r in rels_b if r[0] == "NEXT_TURN"} and len(turns_a) == 22  # sessions of 18 and 6 turns


def test_graph_is_the_same_at_once_or_message_by_message(runner, embedder, tq, namespace):
    """Keyed topics (structured turns): the whole graph -- topics, events, chains, states and
    their evolution, every vector -- is the same either way (RELATED_EVENT aside)."""
    values = ["lyon", "lyon", "oslo", "kyoto", "kyoto", "lima", "cairo", "perth", "perth", "quito"]
    turns = [_structured(i, session=f"s{i // 4}", value=v) for i, v in enumerate(values)]
    conv = Conversation(id="c1", speakers=["Ann"], turns=turns)
    memo = MemoEmbedder(embedder)
    whole = namespace + "-whole"
    try:
        at_once = StateMemory(runner, memo, whole).ingest([conv])
        relations = _one_by_one(StateMemory(runner, memo, namespace), conv)
        nodes_a, rels_a, vecs_a = _graph(tq, runner, whole, conv)
        nodes_b, rels_b, vecs_b = _graph(tq, runner, namespace, conv)
    finally:
        runner.write("core/delete_namespace", namespace=whole)
    assert relations == at_once.details["state_relations"] == {"initial": 1, "confirm": 3,
                                                               "change": 6}
    assert nodes_a == nodes_b and rels_a == rels_b and vecs_a.keys() == vecs_b.keys()
    for name, vec in vecs_a.items():
        assert np.allclose(vec, vecs_b[name], atol=1e-5), name
    assert sum(1 for r in rels_a if r[0] == "NEXT_TURN") == 7        # 3 sessions: 4 + 4 + 2 turns


CITIES = ["Lyon", "Oslo", "Kyoto", "Lima", "Cairo", "Perth", "Quito", "Tartu", "Dakar", "Hanoi",
          "Bergen", "Cusco", "Fez", "Split", "Turku", "Recife", "Gdansk", "Hobart", "Nara", "Arles"]
#: Varied wording: no two window vectors reach the 0.95 confirm threshold (max cosine 0.88).
TEMPLATES = ["I moved to {} last spring.", "My flat is in {} now.", "These days I live in {}.",
             "We settled down in {} after all.", "Home is {} at the moment."]


def _structured(i: int, session: str = "s1", value: str | None = None) -> Turn:
    return Turn(source_id=f"D{i}", speaker="Ann", text=TEMPLATES[i % 5].format(CITIES[i]),
                timestamp=T0 + timedelta(hours=i), session=session, position=i,
                meta={"attribute": "home_city", "person": "Ann", "value": value or f"town {i}"})


def test_late_and_interleaved_turns_relink_their_stored_neighbours(runner, embedder, tq, namespace):
    memo = MemoEmbedder(embedder)
    mem = StateMemory(runner, memo, namespace)
    turns = [_structured(i) for i in range(8)]
    conv = Conversation(id="c1", speakers=["Ann"], turns=turns)
    mem.ingest([conv.model_copy(update={"turns": [turns[i] for i in (1, 3, 5)]})])
    report = mem.ingest([conv.model_copy(update={"turns": [turns[i] for i in (0, 2, 4, 6, 7)]})])
    assert report.created == {"Event": 5, "State": 5} and report.skipped == {}
    assert report.details["state_relations"] == {"history": 3, "change": 2}
    [topic] = runner.read("state/list_topics", namespace=namespace, conversation="c1")
    assert [c["source_ids"][0] for c in mem.topic_chain(topic["id"])] == [f"D{i}" for i in range(8)]
    assert mem.check() == {"bad_current": 0, "unchained": 0}
    ids = [node_id(namespace, "event", "c1", t.source_id) for t in turns]
    rels = [(r["type"], r["source"], r["target"]) for r in tq.read("read_relationships", namespace=namespace)]
    assert sorted((s, t) for k, s, t in rels if k == "NEXT_TURN") == sorted(zip(ids, ids[1:]))
    assert sorted((s, t) for k, s, t in rels if k == "TEMPORAL_NEXT") == sorted(zip(ids, ids[1:]))
    stored = {r["id"]: r["props"] for r in tq.read("read_nodes", namespace=namespace, label="Event")}
    windows = memo.embed_documents(window_texts(turns))
    for i, eid in enumerate(ids):
        assert stored[eid].get("prev_id") == (ids[i - 1] if i else None)
        assert stored[eid].get("next_id") == (ids[i + 1] if i < 7 else None)
        assert np.allclose(stored[eid]["embedding"], windows[i], atol=1e-5), i
    states = sorted((s["props"] for s in tq.read("read_nodes", namespace=namespace, label="State")),
                    key=lambda p: p["valid_from"])
    assert [s["value"] for s in states] == [f"town {i}" for i in range(8)]
    assert [s.get("valid_to") for s in states[:-1]] == [s["valid_from"] for s in states[1:]]
    assert states[-1].get("valid_to") is None
    current = mem.store.topic_states([topic["id"]], only_current=True)
    assert [h.value for h in current] == ["town 7"]


def test_concurrent_batches_into_one_topic_and_session_lose_no_update(runner, embedder, tq,
                                                                      namespace):
    writers, per_writer = 4, 5
    n = writers * per_writer
    # writer w holds positions w, w+4, ...; values repeat in pairs so that some confirm
    turns = [_structured(i, value=f"town {i // 2}") for i in range(n)]
    memo = MemoEmbedder(embedder)
    conv = Conversation(id="c1", speakers=["Ann"], turns=turns)
    barrier = threading.Barrier(writers)

    def write(w: int) -> None:
        barrier.wait()
        StateMemory(runner, memo, namespace).ingest(
            [conv.model_copy(update={"turns": turns[w::writers]})])

    with ThreadPoolExecutor(writers) as pool:
        list(pool.map(write, range(writers)))
    mem = StateMemory(runner, memo, namespace)
    assert mem.counts()["Event"] == n and mem.check() == {"bad_current": 0, "unchained": 0}
    ids = [node_id(namespace, "event", "c1", t.source_id) for t in turns]
    rels = [(r["type"], r["source"], r["target"]) for r in tq.read("read_relationships", namespace=namespace)]
    assert sorted((s, t) for k, s, t in rels if k == "TEMPORAL_NEXT") == sorted(zip(ids, ids[1:]))
    assert sorted((s, t) for k, s, t in rels if k == "NEXT_TURN") == sorted(zip(ids, ids[1:]))
    assert len(rels) == len(set(rels))
    stored = {r["id"]: r["props"] for r in tq.read("read_nodes", namespace=namespace, label="Event")}
    windows = memo.embed_documents(window_texts(turns))
    for i, eid in enumerate(ids):
        assert (stored[eid].get("prev_id"), stored[eid].get("next_id")) == (
            ids[i - 1] if i else None, ids[i + 1] if i < n - 1 else None)
        assert np.allclose(stored[eid]["embedding"], windows[i], atol=1e-5), i
    [topic] = runner.read("state/list_topics", namespace=namespace, conversation="c1")
    current = mem.store.topic_states([topic["id"]], only_current=True)
    assert [h.value for h in current] == [f"town {(n - 1) // 2}"]
    states = [s["props"] for s in tq.read("read_nodes", namespace=namespace, label="State")]
    evidence = sum(1 for k, _, _ in rels if k == "EVIDENCED_BY")
    assert evidence == n == sum(s["evidence_count"] for s in states)
    assert sum(1 for k, _, _ in rels if k == "CURRENT_STATE") == 1


def test_times_and_copied_vectors_are_stored_exactly(runner, embedder, tq, namespace):
    """Times reach Neo4j as ISO-8601 text (graphmem.timeparse.time_param) and are stored as the
    same instants with their own offsets, microseconds kept; the vector of a state a turn asserts
    and of the topic a turn founds is its event's, copied on the server: exactly equal."""
    zones = [timezone(timedelta(hours=2)), timezone(timedelta(hours=-8)), timezone.utc]
    turns = [_structured(i).model_copy(update={"timestamp": (
        T0 + timedelta(hours=i, microseconds=123457 * i)).astimezone(zones[i % 3])}) for i in range(6)]
    conv = Conversation(id="c1", speakers=["Ann"], turns=turns)
    report = StateMemory(runner, MemoEmbedder(embedder), namespace).ingest([conv])
    assert report.created == {"Topic": 1, "Event": 6, "State": 6, "ConversationLock": 1,
                              "Person": 1}
    nodes = {label: {r["id"]: r["props"] for r in tq.read("read_nodes", namespace=namespace, label=label)}
             for label in ("Event", "State", "Topic")}
    states = []
    for turn in turns:
        event = nodes["Event"][node_id(namespace, "event", "c1", turn.source_id)]
        state = nodes["State"][node_id(namespace, "state", "c1", turn.source_id)]
        for stored in (event["occurred_at"], state["valid_from"]):
            assert stored.to_native() == turn.timestamp
            assert stored.utcoffset() == turn.timestamp.utcoffset()
        assert state["embedding"] == event["embedding"]
        states.append(state)
    assert [s["valid_to"].to_native() for s in states[:-1]] == [t.timestamp for t in turns[1:]]
    assert states[-1].get("valid_to") is None
    [topic] = nodes["Topic"].values()
    first = nodes["Event"][node_id(namespace, "event", "c1", turns[0].source_id)]
    assert topic["embedding"] == first["embedding"]
    assert len(first["embedding"]) == embedder.dimension

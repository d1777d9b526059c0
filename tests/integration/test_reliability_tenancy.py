"""Tenant isolation on the real Neo4j: two tenants store conflicting facts about the same entity
(Mohra the truck vs. Mohra the boat); every recall path returns only the caller's data, even when
corrupted cross-tenant relationships are planted at every hop (so each hop's namespace check is
what keeps the data apart); and a small tenant inside a big vector index of another namespace
still gets its k results (exact in-namespace scans, or the oversampled index with an exact
in-namespace fallback).

NOISE_NODES (default 10 000: twenty times the largest vector-index window a recall asks for,
``MIN_OVERSAMPLE``; ``GRAPHMEM_NOISE_NODES`` overrides, e.g. 100000) noise :Query nodes are
written around the small tenant; their embeddings lie closer to the question than any of the
tenant's own memories, so the vector index's top hits are all foreign.
"""

from __future__ import annotations

import os
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from reliability import counts, other_namespace, snapshot, tq, trajectory  # noqa: F401

from graphmem.errors import InvalidInputError
from graphmem.experience import ExperienceMemory
from graphmem.facade import GraphMemory
from graphmem.insight import InsightMemory
from graphmem.names import node_id
from graphmem.retrieval.engine import MIN_OVERSAMPLE
from graphmem.langchain.retrievers import CombinedGraphMemoryRetriever, ExperienceRetriever, InsightRetriever


def _ids_of(facade: GraphMemory, tq) -> set[str]:
    """Every node id of the facade's namespace."""
    from reliability import snapshot

    return {i for label, nodes in snapshot(tq, facade.namespace).items() if label != "_counts"
            for i in nodes}

QUESTION = "Is Mohra a truck or a boat?"
FACTS = {"a": "Mohra is a red truck that carries timber.",
         "b": "Mohra is a sailing boat moored in Kiel."}
NOISE_NODES = int(os.environ.get("GRAPHMEM_NOISE_NODES", str(20 * MIN_OVERSAMPLE)))
NOISE_BATCH = 5000


# ---------------------------------------------------------------- insight memory
def _insight_tenant(runner, embedder, ns: str, fact: str) -> tuple[InsightMemory, dict]:
    mem = InsightMemory(runner, embedder, ns, related_top=0)
    q1 = mem.add_query(QUESTION, "resolved", ["search[Mohra]", "finish[truck]"])
    q2 = mem.add_query("What kind of vehicle is Mohra?", "failed", ["lookup[Mohra]"])
    mem.relate_queries(q1, [q2])                          # hop 1: q1 -RELATED_QUERY- q2
    insight = mem.add_insight(fact, [q2])                 # hop 2: insight -SUPPORTS-> q2
    return mem, {"q1": q1, "q2": q2, "insight": insight}


def test_insight_recall_paths_return_only_the_callers_data(
        runner, embedder, tq, namespace, other_namespace) -> None:
    a, ida = _insight_tenant(runner, embedder, namespace, FACTS["a"])
    b, idb = _insight_tenant(runner, embedder, other_namespace, FACTS["b"])

    def views(mem: InsightMemory, ids: dict) -> dict:
        recall = mem.recall(QUESTION, k=5, query_k=1, lam=1.0)
        return {"recall": recall.model_dump(exclude={"timings"}), "get": mem.get_insights([ids["insight"]]),
                "history": mem.history(ids["insight"]).model_dump(), "stats": mem.graph_summary()}

    before_a, before_b = views(a, ida), views(b, idb)
    assert [i["text"] for i in before_a["recall"]["items"]] == [FACTS["a"]]
    assert [i["text"] for i in before_b["recall"]["items"]] == [FACTS["b"]]
    # graph expansion two hops out: seed q1 -> RELATED_QUERY q2 -> SUPPORTS insight
    details = before_a["recall"]["rounds"][0]["details"]
    assert details["seed_query_ids"] == [ida["q1"]]
    assert details["expanded_query_ids"] == [ida["q1"], ida["q2"]]

    # plant corrupted cross-tenant edges at every hop the recall paths follow
    for frm, to, rel in [
        (ida["q1"], idb["q1"], "RELATED_QUERY"), (idb["q1"], ida["q1"], "RELATED_QUERY"),
        (idb["insight"], ida["q1"], "SUPPORTS"), (idb["insight"], ida["q2"], "SUPPORTS"),
        (ida["insight"], idb["q1"], "SUPPORTS"), (ida["insight"], idb["q1"], "CONFLICTS_WITH"),
        (idb["insight"], ida["insight"], "REVISION_OF"), (ida["insight"], idb["insight"], "REVISION_OF"),
        (idb["insight"], ida["insight"], "CONTEXTUALIZES"),
    ]:
        assert tq.write("link_across", from_id=frm, to_id=to, type=rel) == [{"linked": 1}]

    assert views(a, ida) == before_a
    assert views(b, idb) == before_b
    # the LangChain retriever of each tenant sees only that tenant's insight
    for ns, fact, other in ((namespace, FACTS["a"], FACTS["b"]),
                            (other_namespace, FACTS["b"], FACTS["a"])):
        docs = InsightRetriever(graph_memory=GraphMemory(runner, embedder, ns), k=5).invoke(QUESTION)
        assert [d.page_content for d in docs] == [fact]
        assert all(d.metadata["namespace"] == ns for d in docs)
        assert other not in str([d.metadata for d in docs])
    # ids of the other tenant are unknown here, for reads and for writes
    assert a.get_insights([idb["insight"]]) == []
    with pytest.raises(InvalidInputError, match="not in namespace|no insight"):
        a.history(idb["insight"])
    with pytest.raises(InvalidInputError, match=idb["insight"]):
        a.record_evidence(idb["insight"], ida["q1"], positive=True)
    with pytest.raises(InvalidInputError, match=idb["insight"]):
        a.feedback("Is Mohra a truck?", "resolved", ["search[Mohra]"], [idb["insight"]])
    assert a.contextualize(ida["insight"], idb["insight"], ida["q1"]) is False
    b_before = snapshot(tq, other_namespace)
    # a full feedback round in tenant a (recall -> controller -> writes) leaves b as it was
    result = a.feedback("Is Mohra a truck, really?", "resolved", ["search[Mohra]"])
    assert set(result.related_query_ids) <= {ida["q1"], ida["q2"]}
    assert snapshot(tq, other_namespace) == b_before


# ---------------------------------------------------------------- experience memory
def _experience_tenant(runner, embedder, ns: str, vehicle: str, verb: str) -> ExperienceMemory:
    mem = ExperienceMemory(runner=runner, embedder=embedder, namespace=ns)
    experts = [
        trajectory("mohra", "drive the Mohra to the garage",
                   [f"go to {vehicle} 1", f"{verb} {vehicle} 1", "go to garage 1"]),
        trajectory("park", "park the Mohra next to the garage",
                   [f"go to {vehicle} 1", f"{verb} {vehicle} 1", "go to garage 2"]),
    ]
    exploration = trajectory("mohra", "drive the Mohra to the garage",
                             [f"go to {vehicle} 1", "look at shelf 1", f"{verb} {vehicle} 1"],
                             reward=0.0, kind="exploration")
    mem.ingest(experts, explorations=[exploration], k=1, tau=-1.0)
    return mem


def _keys(result) -> set[str]:
    out = set()
    for item in result.items:
        out.add(item.id)
        out.update(c.neighbour_id for c in item.cross)
        out.update(r["action_key"] for r in item.workflow_rules)
        out.update(str(e["action_key"]) + str(e["target_key"]) for e in item.correction_rules)
    return out


def test_experience_recall_paths_return_only_the_callers_data(
        runner, embedder, tq, namespace, other_namespace) -> None:
    a = _experience_tenant(runner, embedder, namespace, "truck", "drive")
    b = _experience_tenant(runner, embedder, other_namespace, "boat", "sail")
    query = "drive the Mohra to the garage"
    before_a = a.recall(query, k=2, t=2).model_dump(exclude={"timings"})
    before_b = b.recall(query, k=2, t=2).model_dump(exclude={"timings"})
    text_a, text_b = str(before_a), str(before_b)
    assert "truck" in text_a and "boat" not in text_a
    assert "boat" in text_b and "truck" not in text_b
    assert all(c["neighbour_id"] == node_id(namespace, "task", "park")
               for c in before_a["items"][0]["cross"])

    na, nb = namespace, other_namespace
    for frm, to, rel in [
        (node_id(na, "task", "mohra"), node_id(nb, "task", "park"), "SIMILAR_TASK"),
        (node_id(nb, "task", "park"), node_id(na, "task", "mohra"), "SIMILAR_TASK"),
        (node_id(na, "task", "mohra"), node_id(nb, "decision_graph", "mohra", "common"), "HAS_GRAPH"),
        (node_id(na, "task", "park"), node_id(nb, "decision_graph", "park", "expert"), "HAS_GRAPH"),
        (node_id(na, "decision_graph", "park", "expert"), node_id(nb, "action", "park", "expert", 2),
         "HAS_ACTION"),
        (node_id(na, "action", "park", "expert", 1), node_id(nb, "action", "park", "expert", 2),
         "DECIDED"),
        (node_id(na, "task", "mohra"), node_id(nb, "edit_operation", "mohra", 0), "HAS_EDIT"),
    ]:
        assert tq.write("link_across", from_id=frm, to_id=to, type=rel) == [{"linked": 1}]
    assert a.recall(query, k=2, t=2).model_dump(exclude={"timings"}) == before_a
    assert b.recall(query, k=2, t=2).model_dump(exclude={"timings"}) == before_b
    # retrievers: one memory, and insight + experience fused, per tenant
    for ns, own, foreign in ((na, "truck", "boat"), (nb, "boat", "truck")):
        facade = GraphMemory(runner, embedder, ns)
        for retriever in (ExperienceRetriever(graph_memory=facade, k=3),
                          CombinedGraphMemoryRetriever(graph_memory=facade, k=6,
                                                       memories=("insight", "experience"))):
            docs = retriever.invoke(query)
            assert docs and all(d.metadata["namespace"] == ns for d in docs)
            text = str([(d.page_content, d.metadata) for d in docs])
            assert own in text and foreign not in text
            assert all(i in _ids_of(facade, tq) for d in docs for i in d.metadata["node_ids"])
    # a tenant without memories gets nothing, not the neighbour's
    empty = ExperienceMemory(runner=runner, embedder=embedder, namespace=f"{na}-empty")
    assert empty.recall(query, k=3).items == []


def test_facade_delete_namespace_leaves_the_other_tenant_whole(
        runner, embedder, tq, namespace, other_namespace) -> None:
    _insight_tenant(runner, embedder, namespace, FACTS["a"])
    _insight_tenant(runner, embedder, other_namespace, FACTS["b"])
    _experience_tenant(runner, embedder, namespace, "truck", "drive")
    _experience_tenant(runner, embedder, other_namespace, "boat", "sail")
    tq.write("link_across", from_id=node_id(namespace, "task", "mohra"),
             to_id=node_id(other_namespace, "task", "park"), type="SIMILAR_TASK")
    b_before = snapshot(tq, other_namespace)
    a_counts = counts(tq, namespace)
    assert a_counts["nodes"] > 20
    deleted = GraphMemory(runner, embedder, namespace).delete_namespace(batch_size=7)
    assert deleted == a_counts["nodes"]
    assert counts(tq, namespace) == {"nodes": 0, "relationships": 0}
    assert runner.read("core/count_namespace_nodes", namespace=namespace) == []
    after = snapshot(tq, other_namespace)
    # the planted cross-tenant edge went with tenant a's node; b's nodes are all still there
    assert after["_counts"]["relationships"] == b_before["_counts"]["relationships"] - 1
    assert {k: v for k, v in after.items() if k != "_counts"} == \
        {k: v for k, v in b_before.items() if k != "_counts"}
    assert GraphMemory(runner, embedder, namespace).delete_namespace() == 0


# ---------------------------------------------------------------- a small tenant in a big index
@pytest.fixture(scope="module")
def crowded(runner, embedder):
    """A noise namespace of NOISE_NODES :Query nodes (and 2 500 :Task, :Event, :Episode nodes
    each, more than any oversampling) whose embeddings lie
    closer to QUESTION than anything of the small tenant; deleted (in batches) afterwards."""
    from reliability import TEST_CYPHER

    from graphmem.graph.registry import CypherRegistry
    from graphmem.graph.runner import QueryRunner

    test_runner = QueryRunner(runner.driver, CypherRegistry.load(TEST_CYPHER),
                              database=runner.database)
    noise = f"test-noise-{uuid.uuid4().hex[:12]}"
    center = [float(x) for x in embedder.embed_query(QUESTION)]
    began = time.perf_counter()

    def write(kind: str, start: int, count: int) -> None:
        test_runner.write("write_random_vectors", namespace=noise, kind=kind, start=start,
                          count=count, center=center, spread=0.3)

    jobs = [("query", s, min(NOISE_BATCH, NOISE_NODES - s)) for s in range(0, NOISE_NODES, NOISE_BATCH)]
    jobs += [(kind, 0, 2500) for kind in ("task", "event", "episode")]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda job: write(*job), jobs))
    seconds = time.perf_counter() - began
    print(f"\nwrote {NOISE_NODES} noise :Query + 2500 :Task, :Event, :Episode nodes each "
          f"in {seconds:.1f} s")
    yield noise
    began = time.perf_counter()
    deleted = GraphMemory(runner, embedder, noise).delete_namespace(batch_size=10_000)
    print(f"\ndelete_namespace removed {deleted} nodes in {time.perf_counter() - began:.1f} s")
    assert deleted == NOISE_NODES + 3 * 2500


def test_small_tenant_gets_k_insight_results_in_a_big_index(runner, embedder, namespace, crowded):
    mem = InsightMemory(runner, embedder, namespace, related_top=0)
    queries = [mem.add_query(f"Mohra question number {i}: which vehicle is it?", "resolved",
                             [f"search[Mohra {i}]"]) for i in range(10)]
    for i, q in enumerate(queries):
        mem.add_insight(f"Mohra fact {i}: check the registry entry.", [q])
    # the vector index's best hits for QUESTION are all foreign noise
    foreign = runner.read("insight/find_related_queries", namespace=crowded,
                          embedding=[float(x) for x in embedder.embed_query(QUESTION)],
                          query_id="none", top=50, threshold=-1.0)
    own = mem.store.related_queries(embedder.embed_query(QUESTION), "none", 10, -1.0)
    assert min(r["similarity"] for r in foreign) > max(r["similarity"] for r in own)
    result = mem.recall(QUESTION, k=5, query_k=5, lam=1.0)
    seeds = result.rounds[0].details["seed_query_ids"]
    assert len(seeds) == 5 and set(seeds) <= set(queries)
    assert len(result.items) == 5
    assert len(own) == 10 and {r["id"] for r in own} == set(queries)


def test_small_tenant_gets_k_experience_results_in_a_big_index(runner, embedder, namespace, crowded):
    mem = ExperienceMemory(runner=runner, embedder=embedder, namespace=namespace)
    mem.ingest([trajectory(f"t{i}", f"Mohra task {i}: move the vehicle", [f"go to shelf {i}"])
                for i in range(10)], k=0)
    result = mem.recall(QUESTION, k=5, t=0, with_rules=False)
    assert len(result.items) == 5
    assert all(item.query.startswith("Mohra task") for item in result.items)


# ---------------------------------------------------------------- state and associative memory
def _turns(city: str, vehicle: str, verb: str) -> list[tuple[str, str]]:
    return [("Alice", f"I live in {city} now, close to the harbour."),
            ("Bob", "Nice! What do you do on weekends?"),
            ("Alice", f"I {verb} my {vehicle} Mohra every Saturday."),
            ("Bob", f"Is Mohra the {vehicle} you bought last year?"),
            ("Alice", f"Yes, Mohra is a {vehicle} and I love it.")]


def _meta(city: str) -> list[dict]:
    return [{"attribute": "home_city", "person": "Alice", "value": city}, {}, {}, {}, {}]


TENANT_TEXT = {"a": ("Berlin", "truck", "drive"), "b": ("Lisbon", "boat", "sail")}


def _conversational_tenants(runner, embedder, na, nb):
    from reliability import conversation

    out = {}
    for ns, key in ((na, "a"), (nb, "b")):
        city, vehicle, verb = TENANT_TEXT[key]
        conv = conversation("conv-1", _turns(city, vehicle, verb), meta=_meta(city))
        facade = GraphMemory(runner, embedder, ns)
        facade.state.ingest([conv])
        facade.associative.ingest([conv])
        out[key] = facade
    return out


def _nodes(tq, ns, label):
    return {r["id"]: r["props"] for r in tq.read("read_nodes", namespace=ns, label=label)}


STATE_QUESTIONS = ["Where does Alice live now?", "What is Mohra?",
                   "What did Alice do after she talked about the harbour?"]


def test_state_and_associative_recall_paths_return_only_the_callers_data(
        runner, embedder, tq, namespace, other_namespace) -> None:
    from graphmem.langchain.retrievers import AssociativeRetriever, StateRetriever

    mems = _conversational_tenants(runner, embedder, namespace, other_namespace)

    def views(facade: GraphMemory) -> list:
        out = [facade.state.recall(q, k=8, max_rounds=4).model_dump(exclude={"timings"})
               for q in STATE_QUESTIONS]
        out += [facade.associative.recall(q, max_rounds=3).model_dump(exclude={"timings"})
                for q in STATE_QUESTIONS]
        return out

    for m in mems.values():  # load the vector caches: both snapshots score the dense side alike
        views(m)
    before = {key: views(m) for key, m in mems.items()}
    for key, other in (("a", "b"), ("b", "a")):
        text = str(before[key])
        assert TENANT_TEXT[key][0] in text and TENANT_TEXT[key][1] in text
        assert TENANT_TEXT[other][0] not in text and TENANT_TEXT[other][1] not in text

    na, nb = namespace, other_namespace
    ev = lambda ns, i: node_id(ns, "event", "conv-1", f"D1:{i}")          # noqa: E731
    ep = lambda ns, i: node_id(ns, "episode", "conv-1", f"D1:{i}")        # noqa: E731
    topic_a = node_id(na, "topic", "conv-1", "Alice|home_city")
    state_b = node_id(nb, "state", "conv-1", "D1:1")
    assert topic_a in _nodes(tq, na, "Topic") and state_b in _nodes(tq, nb, "State")
    cue_a = next(i for i, p in _nodes(tq, na, "Cue").items() if "mohra" in p["text"].lower())
    tag_a = next(iter(_nodes(tq, na, "Tag")))
    tag_b = next(iter(_nodes(tq, nb, "Tag")))
    theme_a = next(iter(_nodes(tq, na, "Theme")))
    unit_b = next(iter(_nodes(tq, nb, "SemanticUnit")), None)
    planted = [
        (ev(na, 1), ev(nb, 2), "TEMPORAL_NEXT"), (ev(nb, 3), ev(na, 3), "TEMPORAL_NEXT"),
        (ev(na, 3), ev(nb, 3), "RELATED_EVENT"), (ev(nb, 1), topic_a, "SUPPORTED_BY"),
        (topic_a, state_b, "CURRENT_STATE"), (state_b, topic_a, "SUPPORTED_BY"),
        (topic_a, ev(nb, 1), "FIRST_TIMELINE_NODE"),
        (cue_a, tag_b, "HAS_TAG"), (tag_a, ep(nb, 3), "LEADS_TO"),
        (ep(na, 3), ep(nb, 4), "NEXT_EPISODE"), (theme_a, ep(nb, 5), "GROUPS"),
    ]
    if unit_b:
        planted.append((unit_b, ep(na, 3), "DERIVED_FROM"))
    for frm, to, rel in planted:
        assert tq.write("link_across", from_id=frm, to_id=to, type=rel) == [{"linked": 1}], rel
    after = {key: views(m) for key, m in mems.items()}
    # associative scores are pure vector/graph scores: identical. State keyword scores come from
    # the shared full-text index (BM25 statistics span all tenants), so compare what is returned.
    for key in after:
        assert after[key][3:] == before[key][3:]
        own = {i for label, nodes in snapshot(tq, mems[key].namespace).items() if label != "_counts"
               for i in nodes}
        for result in after[key][:3]:
            assert {h["id"] for h in result["items"]} <= own
    for key, other in (("a", "b"), ("b", "a")):
        text = str(after[key])
        assert TENANT_TEXT[other][0] not in text and TENANT_TEXT[other][1] not in text
    for key, other in (("a", "b"), ("b", "a")):
        facade = mems[key]
        for retriever in (StateRetriever(graph_memory=facade, k=6),
                          AssociativeRetriever(graph_memory=facade, k=6),
                          CombinedGraphMemoryRetriever(graph_memory=facade, k=10)):
            for question in STATE_QUESTIONS[:1]:
                docs = retriever.invoke(question)
                assert all(d.metadata["namespace"] == facade.namespace for d in docs)
                text = str([(d.page_content, d.metadata) for d in docs])
                assert TENANT_TEXT[other][0] not in text and TENANT_TEXT[other][1] not in text


def test_small_tenant_gets_k_state_and_associative_results_in_a_big_index(
        runner, embedder, namespace, crowded) -> None:
    from reliability import conversation

    turns = [("Alice", f"Mohra trip {i}: I drove the vehicle to harbour number {i}.")
             for i in range(10)]
    facade = GraphMemory(runner, embedder, namespace)
    facade.state.ingest([conversation("small", turns)])
    facade.associative.ingest([conversation("small", turns)])
    # the engine's first round alone (lexical + dense over the tenant's own units)
    events = facade.state.recall(QUESTION, k=5, max_rounds=1).items
    assert len(events) == 5 and all("Mohra trip" in h.text for h in events)
    episodes = facade.associative.vector_search(QUESTION, k=5)
    assert len(episodes) == 5 and all("Mohra trip" in e.text for e in episodes)
    recall = facade.state.recall(QUESTION, k=5)
    assert len(recall.items) == 5

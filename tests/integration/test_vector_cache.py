"""The engine's in-process vector cache against a real Neo4j: a small namespace's dense side comes
from memory from its second recall on, with the same ranking as the database scan, and every
graphmem write (a new message, a re-embedded unit) is seen by the very next recall."""

from __future__ import annotations

from graphmem.facade import GraphMemory
from graphmem.retrieval import HybridSearch
from graphmem.retrieval.vectors import vector_cache_of
from reliability import conversation, tq  # noqa: F401

QUESTIONS = ["Where does Alice live now?", "Who sails the boat Mohra?", "Where did her sister move?"]
TURNS = [("Alice", "I live in Porto now, close to the river."),
         ("Bob", "Do you still sail your boat Mohra?"),
         ("Alice", "Yes, I sail Mohra every Saturday."),
         ("Bob", "And your sister?"),
         ("Alice", "She moved to Lisbon last year.")]


def _ranking(search: HybridSearch, namespace: str, embedder, question: str):
    row = search.fetch(namespace, question, embedder.embed_query(question))
    return row["dense_mode"], [(c.id, c.score) for c in search.search(
        namespace, question, embedder.embed_query(question), k=5)]


def _same(first: list, scanned: list) -> bool:
    """The same ids in the same order, scores equal up to float32 rounding (the cache computes
    cosines in float32 numpy, the scan in Neo4j's float64)."""
    return all([i for i, _ in a] == [i for i, _ in b]
               and all(abs(x - y) <= 1e-4 for (_, x), (_, y) in zip(a, b, strict=True))
               for a, b in zip(first, scanned, strict=True))


def test_cached_rounds_rank_as_the_database_scan_and_see_every_write(
        runner, tq, embedder, namespace, monkeypatch) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    vector_cache_of(runner).clear()
    for label, memory in (("Event", mem.state), ("Episode", mem.associative)):
        memory.ingest([conversation("conv-cache", TURNS)])
        search = HybridSearch(runner, label)
        monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", "0")
        scanned = [_ranking(search, namespace, embedder, q) for q in QUESTIONS]
        monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", "1")
        first = [_ranking(search, namespace, embedder, q) for q in QUESTIONS]
        assert {mode for mode, _ in scanned} == {"exact"} and first[0][0] == "exact"
        assert {mode for mode, _ in first[1:]} == {"cache"}       # loaded on the second miss
        assert _same([r for _, r in first], [r for _, r in scanned]), (first, scanned)

    # a new message through the facade: the next round sees the changed token, reads the new
    # and re-embedded (its session neighbour's window) vectors only, and ranks with them
    mem.add([{"id": "m-new", "role": "Alice", "content": "I bought a red kayak in Faro."}],
            conversation_id="conv-cache", memories=("state",))
    search = HybridSearch(runner, "Event")
    mode, ranked = _ranking(search, namespace, embedder, "Who bought a red kayak in Faro?")
    assert mode == "cache"
    top = search.search(namespace, "Who bought a red kayak in Faro?",
                        embedder.embed_query("Who bought a red kayak in Faro?"), k=1)[0]
    assert "kayak" in top.text and top.components["dense"] > 0.5
    entry = vector_cache_of(runner).get(("Event", namespace, embedder.dimension))
    assert entry is not None and top.id in entry.index and len(entry.stamps) == len(TURNS) + 1
    # the token is the unit version of the conversation's write lock, raised by each batch
    [lock] = tq.read("read_nodes", namespace=namespace, label="ConversationLock")
    assert entry.token == (1, lock["props"]["unit_version"])


def test_a_doctor_repair_raises_the_unit_version_and_the_cache_reads_the_new_vector(
        runner, tq, embedder, namespace) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    vector_cache_of(runner).clear()
    for label, memory in (("Event", mem.state), ("Episode", mem.associative)):
        memory.ingest([conversation("conv-repair", TURNS)])
        search = HybridSearch(runner, label)
        for _ in range(3):
            row = search.fetch(namespace, QUESTIONS[0], embedder.embed_query(QUESTIONS[0]))
        assert row["dense_mode"] == "cache"
        key = (label, namespace, embedder.dimension)
        before = vector_cache_of(runner).get(key)
        target = sorted(before.ids)[0]
        vector = embedder.embed_query("a kayak trip to Faro")
        assert runner.write(f"doctor/set_embeddings@{label}", namespace=namespace,
                            rows=[{"id": target, "embedding": vector}])[0]["repaired"] == 1
        row = search.fetch(namespace, QUESTIONS[0], embedder.embed_query(QUESTIONS[0]))
        after = vector_cache_of(runner).get(key)
        assert row["dense_mode"] == "cache" and after.token != before.token
        assert after.cosine(vector, [target])[0] > 0.999


def test_statistics_kept_at_the_token_match_the_database_and_follow_writes(
        runner, embedder, namespace, monkeypatch) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    vector_cache_of(runner).clear()
    mem.state.ingest([conversation("conv-stats", TURNS)])
    search = HybridSearch(runner, "Event")
    question = "Where does Alice sail her boat?"

    def details() -> dict:
        search.search(namespace, question, embedder.embed_query(question), k=5)
        d = search.last_details
        return {"mode": d["dense_mode"], "units": d["units"], "avg": round(d["avg_length"], 6),
                "df": d["df"], "speakers": d["speakers"]}

    monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", "0")
    scanned = details()
    monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", "1")
    details(), details()                                   # loaded on the second miss
    cached = [details(), details()]                        # the second reads nothing kept again
    assert [c["mode"] for c in cached] == ["cache", "cache"]
    assert all({**c, "mode": "exact"} == scanned for c in cached)
    assert scanned["units"] == len(TURNS) and scanned["speakers"] == {"Alice": 3, "Bob": 2}
    entry = vector_cache_of(runner).get(("Event", namespace, embedder.dimension))
    assert entry.stats[0] == len(TURNS) and round(entry.stats[1], 6) == scanned["avg"]
    assert entry.speakers == {"Alice": 3, "Bob": 2}
    # the cache read every unit's terms with its vector: every term's df is known, none is counted
    assert entry.complete_lexicon and entry.df_known("lisbon") and entry.dfs.get("faro", 0) == 0
    assert {t: entry.dfs.get(t, 0) for t in scanned["df"]} == scanned["df"]

    # a write changes the token: the kept statistics are read again, with the new message
    mem.add([{"id": "m-boat", "role": "Alice", "content": "I sail Mohra to Faro on Sunday."}],
            conversation_id="conv-stats", memories=("state",))
    after = details()
    assert after["mode"] == "cache" and after["units"] == len(TURNS) + 1
    assert after["speakers"] == {"Alice": 4, "Bob": 2}
    monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", "0")
    assert {**after, "mode": "exact"} == details()

"""Passages of a long message on the real Neo4j (graphmem.retrieval.passages): a fact near the end
of a ~1,500-word assistant reply, beyond what the message's one window vector reads, is found by
a paraphrased question on the dense side alone, in state and associative memory, through the
database scan and the in-process vector cache, and the recall item names the passage that
matched; a short message stores no passages."""

from __future__ import annotations

import random

import numpy as np

from graphmem.evaluation.protocol import RetrievalSetting, apply_setting
from graphmem.facade import GraphMemory
from graphmem.retrieval.passages import MAX_PASSAGES
from graphmem.retrieval.text import analyze
from graphmem.retrieval.vectors import vector_cache_of
from reliability import conversation, tq  # noqa: F401

SUBJECTS = ["The build pipeline", "Our quarterly budget", "The kitchen renovation",
            "The marketing plan", "The database migration", "My running schedule",
            "The garden layout", "The onboarding guide", "The style guide", "The podcast script",
            "The sales forecast", "The reading list"]
VERBS = ["needs another review of", "depends heavily on", "should be simplified around",
         "was rewritten to cover", "now includes a section on",
         "could benefit from clearer notes about", "will be revisited after", "has a checklist for"]
OBJECTS = ["error handling and retries", "the vendor contracts", "weekly progress meetings",
           "tile samples and grout colours", "index rebuilds and backups",
           "interval training on Tuesdays", "raised beds near the fence",
           "access badges and laptop setup", "font sizes in the slides",
           "interview questions for guests", "regional growth estimates", "novels from the library"]
TAILS = ["before the end of the month.", "so nobody gets confused later.",
         "according to the latest notes.", "which everyone agreed on in the meeting.",
         "and the summary table lists each step.", "with a short explanation for every item."]


def filler(words: int, seed: int) -> str:
    """Varied sentences of office and household chores, at least ``words`` words."""
    rng = random.Random(seed)
    out: list[str] = []
    while sum(len(s.split()) for s in out) < words:
        out.append(f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} "
                   f"{rng.choice(TAILS)}")
    return " ".join(out)


FACT = "the old lighthouse hotel on the island of Runde"
CLOSING = ("Finally, the team offsite. We booked " + FACT + " for the third week of May. Everyone "
           "travels there together by ferry from the mainland harbour on Monday morning, the rooms "
           "are shared two per cabin, lunch is served in the keeper's cottage, the afternoons "
           "are free for hiking along the cliffs to watch the puffins, and the last evening ends "
           "with a bonfire and grilled fish on the beach before the ferry home.")
LONG = ("Here is the full plan you asked for. " + filler(1400, seed=7) + " " + CLOSING + " "
        + filler(60, seed=9))
#: A paraphrase: of its analyzed terms only "we" is in the closing paragraph.
QUESTION = "What accommodation did we reserve for the staff trip?"
TURNS = [("user", "Can you write me a detailed plan for the next quarter?"),
         ("assistant", LONG),
         ("user", "Our team is small, just five employees in the Oslo office."),
         ("assistant", "A small team keeps decisions quick."),
         ("user", "Can you recommend a good podcast about history?"),
         ("assistant", "Try one that covers a single century per season."),
         ("user", "Where could I spend a quiet weekend?"),
         ("assistant", "A cabin in the hills or a small coastal town would be calm."),
         ("user", "Our printer keeps jamming."),
         ("assistant", "Clean the rollers and use thicker paper.")]
DENSE_ONLY = RetrievalSetting(alpha=0.0, beta=0.0, delta=0.0, graph_weight=0.0, max_rounds=1)


def _found(memory, documents) -> dict:
    """The recall item of the long message among the top 3 (asserted), with its document."""
    result = memory.recall(QUESTION, k=3, max_rounds=1)
    docs = documents(result)
    hits = [(item, doc) for item, doc in zip(result.items, docs, strict=True)
            if "Here is the full plan" in item.text]
    assert hits, [item.text[:60] for item in result.items]
    item, doc = hits[0]
    assert item.passage is not None and FACT in item.passage["text"]
    assert doc.metadata["passage"] == item.passage
    return item.passage


def test_a_fact_deep_in_a_long_message_is_found_by_its_passage(runner, tq, embedder, namespace,
                                                                monkeypatch) -> None:
    assert len(LONG.split()) > 1400 and LONG.index(FACT) > 0.85 * len(LONG)
    assert set(analyze(QUESTION)) & set(analyze(CLOSING)) == {"we"}
    mem = GraphMemory(runner, embedder, namespace)
    apply_setting(mem, DENSE_ONLY)
    conv = conversation("conv-long", TURNS)
    mem.state.ingest([conv])
    mem.associative.ingest([conv])
    query = embedder.embed_query(QUESTION)

    for label, memory in (("Event", mem.state), ("Episode", mem.associative)):
        nodes = {r["props"]["text"]: r["props"] for r in tq.read("read_nodes", namespace=namespace,
                                                                 label=label)}
        [long_unit] = [p for text, p in nodes.items() if "Here is the full plan" in text]
        spans = long_unit["passage_spans"]
        flat = np.asarray(long_unit["passage_embeddings"], dtype=np.float64)
        assert 1 < len(spans) // 2 <= MAX_PASSAGES and flat.shape == (len(spans) // 2 * 384,)
        assert np.allclose(np.linalg.norm(flat.reshape(-1, 384), axis=1), 1.0, atol=1e-5)
        # spans into the stored text (an Episode's is "speaker: text"), covering it to its end
        assert long_unit["text"][spans[0]:].startswith("Here is the full plan")
        assert spans[-1] == len(long_unit["text"])
        # a short message stores no passages
        short = [p for text, p in nodes.items() if "printer keeps jamming" in text]
        assert len(short) == 1 and "passage_embeddings" not in short[0] \
            and "passage_spans" not in short[0] and len(short[0]["embedding"]) == 384
        assert [p for p in nodes.values() if "passage_spans" in p] == [long_unit]
        # its window vector alone would leave it below three other messages: the passage finds it
        window = float(np.asarray(long_unit["embedding"]) @ query)
        others = [float(np.asarray(p["embedding"]) @ query) for text, p in nodes.items()
                  if p is not long_unit]
        assert sum(o > window for o in others) >= 3

        documents = memory.documents
        # the database path: cache off
        monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", "0")
        vector_cache_of(runner).clear()
        from_database = _found(memory, documents)
        # the cache path: loaded on the second miss, used from the next recall on
        monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", "1")
        for _ in range(2):
            _found(memory, documents)
        entry = vector_cache_of(runner).get((label, namespace, 384))
        assert entry is not None
        group = entry.passages.group(entry.index[long_unit["id"]])
        assert group is not None and len(group) == len(spans) // 2
        from_cache = _found(memory, documents)
        assert from_cache == from_database
        assert from_cache["text"] == long_unit["text"][from_cache["start"]:from_cache["end"]]
        if label == "Event":
            result = memory.recall(QUESTION, k=3, max_rounds=1)
            assert result.rounds[0].details["dense_mode"] == "cache"

"""Archived units in the engine's in-process cache (graphmem.retrieval.vectors / lexical): masked
out of the dense and lexical top-k before the cut, like the time window, unless a round asks for
them; kept in the namespace's statistics; carried through incremental updates; and the round
query is sent the cache's masked candidates and the lexical query of the right tokens."""

from __future__ import annotations

import numpy as np

from graphmem.retrieval import HybridSearch
from graphmem.retrieval.engine import UNIT_COLUMNS
from graphmem.retrieval.lexical import LexicalIndex, lexical_entry
from graphmem.retrieval.text import archived_token, lucene_query, namespace_token
from graphmem.retrieval.vectors import NamespaceVectors, VectorCache

ROWS = [("a", 1, [1.0, 0.0]), ("b", 1, [0.9, 0.1]), ("c", 1, [0.8, 0.2]), ("d", 1, [0.0, 1.0])]
TERMS = {"a": "boat faro", "b": "boat", "c": "boat boat lisbon", "d": "kiln"}
TIMES = {"a": 10, "b": 20, "c": 30, "d": 40}


def _entry(archived=None, token=(1, 7)) -> NamespaceVectors:
    lexicon = {uid: lexical_entry(TERMS[uid], len(TERMS[uid].split()), "Ann") for uid in TERMS}
    return NamespaceVectors(2, ROWS, token, lexicon, TIMES, archived)


def test_dense_top_masks_archived_units_before_the_cut_unless_asked() -> None:
    query = np.array([1.0, 0.0])
    plain, masked = _entry(), _entry({"a", "c"})
    assert plain.top(query, 2)[0] == ["a", "b"]
    assert masked.top(query, 2)[0] == ["b", "d"]                   # k units when k are live
    assert masked.top(query, 2, include_archived=True) == plain.top(query, 2)
    assert masked.top(query, 5, since=15, until=35)[0] == ["b"]   # window and archive together
    assert masked.top(query, 5, 15, 35, include_archived=True)[0] == ["b", "c"]
    assert _entry({"a", "b", "c", "d"}).top(query, 3) == ([], [])
    # an archived unit is still scored on request (the dense column of S)
    assert masked.cosine(query, ["a"]) == plain.cosine(query, ["a"])


def test_lexical_top_masks_archived_units_and_the_statistics_keep_them() -> None:
    plain, masked = _entry(), _entry({"c"})
    ranked = plain.lexical_top(["boat"], 3)
    assert sorted(ranked) == ["a", "b", "c"]
    assert masked.lexical_top(["boat"], 2) == [u for u in ranked if u != "c"]
    assert masked.lexical_top(["boat"], 2, include_archived=True) == ranked[:2]
    assert masked.lexical_top(["boat"], 5, since=25, until=50) == []
    # N, avgdl and df are the namespace's, archived units included
    assert masked.stats == plain.stats == (4, 1.75)
    assert masked.dfs == plain.dfs and masked.dfs["boat"] == 3
    assert masked.speakers == {"Ann": 4}


def test_an_update_takes_the_archived_flags_it_is_given() -> None:
    query = np.array([1.0, 0.0])
    entry = _entry()
    stamps = dict(entry.stamps)
    archived = entry.updated(stamps, {}, (1, 8), {}, True, TIMES, archived={"a"})
    assert archived.changed(stamps) == []                          # no vector is read again
    assert archived.top(query, 1)[0] == ["b"] and archived.lexical_top(["faro"], 3) == []
    assert archived.lexical_index is not None and archived.lexical_index.archived is not None
    back = archived.updated(stamps, {}, (1, 9), {}, True, TIMES, archived=set())
    assert back.top(query, 1)[0] == ["a"] and back.lexical_top(["faro"], 3) == ["a"]
    assert back.live is None and back.lexical_index.archived is None


def test_an_incrementally_updated_lexical_index_masks_like_a_fresh_one() -> None:
    lexicon = {uid: lexical_entry(TERMS[uid], None, None) for uid in TERMS}
    base = LexicalIndex.build(lexicon, TIMES)
    grown = dict(lexicon, e=lexical_entry("boat boat boat", None, None))
    updated = base.updated(lexicon, grown, dict(TIMES, e=50), archived={"e", "b"})
    fresh = LexicalIndex.build(grown, dict(TIMES, e=50), archived={"e", "b"})
    dfs = {"boat": 4}
    for include in (False, True):
        assert updated.top(["boat"], dfs, 5, 2.0, 5, include_archived=include) == \
            fresh.top(["boat"], dfs, 5, 2.0, 5, include_archived=include)
    assert fresh.top(["boat"], dfs, 5, 2.0, 5) == ["c", "a"]


def test_the_archived_token_is_the_namespace_token_with_a_suffix_no_namespace_has() -> None:
    token, archived = namespace_token("team-a"), archived_token("team-a")
    assert archived.startswith(token) and archived != token and archived.isalnum()
    assert len(token) == 26 and len(archived) > 26
    assert archived_token("team-b") != archived
    assert lucene_query(token, ["boat"]) == f"+ns_token:{token} +(lexical_terms:boat)"
    assert lucene_query(token, ["boat"], archived=archived) == \
        f"+(ns_token:{token} ns_token:{archived}) +(lexical_terms:boat)"


class _CachedRunner:
    """Answers the round query with the units it is sent, at the cache entry's token."""

    def __init__(self, entry: NamespaceVectors):
        self.vector_cache = VectorCache()
        self.vector_cache.put(("Event", "ns", 2), entry)
        self.calls: list[dict] = []

    def read(self, name, **params):
        self.calls.append(params)
        ids = list(dict.fromkeys(params["dense_ids"] + params["lexical_ids"]))
        units = [[{"id": uid, "text": uid, "lexical_terms": TERMS[uid], "source_ids": [],
                   "via_lexical": uid in params["lexical_ids"],
                   "via_dense": uid in params["dense_ids"]}.get(c) for c in UNIT_COLUMNS]
                 for uid in ids]
        return [{"n_units": 4, "avg_length": 1.75, "n_locks": 1, "unit_version": 7, "dfs": [],
                 "dense_mode": "cache", "units": units, "speakers": []}]


def test_a_cached_round_sends_only_live_candidates_unless_asked() -> None:
    runner = _CachedRunner(_entry({"a", "c"}))
    search = HybridSearch(runner, "Event")
    out = search.search("ns", "boat", [1.0, 0.0], k=4)
    sent = runner.calls[-1]
    assert sent["cached"] and sent["lexical_cached"] and sent["include_archived"] is False
    assert set(sent["dense_ids"]) | set(sent["lexical_ids"]) == {"b", "d"}
    assert sent["archived_token"] == archived_token("ns")
    assert archived_token("ns") not in sent["lucene_query"]
    assert {c.id for c in out} == {"b", "d"}
    out = search.search("ns", "boat", [1.0, 0.0], k=4, include_archived=True)
    sent = runner.calls[-1]
    assert sent["include_archived"] is True and set(sent["lexical_ids"]) == {"a", "b", "c"}
    assert f"ns_token:{archived_token('ns')}" in sent["lucene_query"]
    assert {c.id for c in out} == {"a", "b", "c", "d"}

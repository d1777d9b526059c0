"""HybridSearch: the retrieval engine the state (``Event``) and associative (``Episode``) memories call.

One round = ONE read query (``cypher/retrieval/search_units.cypher``, rendered per label as
``retrieval/search_units@Event`` / ``@Episode``) that returns the namespace's BM25 statistics, the
full-text and dense candidates, their session neighbours and the unit count of their speakers; the
Python side scores BM25 with the namespace's own statistics and fuses
(:mod:`graphmem.retrieval.fusion`). When the vector cache holds every unit of the namespace, both
candidate lists come from it (the namespace's exact cosine and BM25 top-k,
:mod:`graphmem.retrieval.vectors`, :mod:`graphmem.retrieval.lexical`) and the query reads them
by id: no index is asked, so the candidates depend on the namespace's own units only. Writing is
the memories' job: :func:`graphmem.retrieval.units.unit_rows` gives the properties a unit must be
written with and :func:`window_texts` the dense-embedding inputs.

A recall's ``since`` / ``until`` (half-open, ``since <= occurred_at < until``) filter every candidate
side inside the query, before its top-k cut (and the vector cache's, :mod:`graphmem.retrieval.vectors`),
so a windowed round ranks the best units of the window; the BM25 statistics stay the namespace's.
Archived units (retention, :mod:`graphmem.agent.retention`) are left out of every candidate side
the same way unless a round asks for them (``include_archived``): the full-text side by their
namespace token (an archived unit carries :func:`~graphmem.retrieval.text.archived_token`), the
others by ``archived_at``; the statistics count them.

A stored vector that cosine cannot score (written around graphmem: NaN, infinity, all zeros, another
width) makes the fast query fail; the round is then run once more with ``guard`` on, which checks
every stored vector element by element and skips the bad ones (a warning names ``graphmem doctor``).
"""

from __future__ import annotations

import logging
import math
import statistics
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from graphmem.errors import InvalidInputError, QueryError
from graphmem.memory import PathStep
from graphmem.retrieval import fusion
from graphmem.retrieval.aliases import alias_cache_of, read_aliases
from graphmem.retrieval.candidates import (SPEAKER, UNIT_COLUMNS, Candidate, stored_time,
                                           token as _token)
from graphmem.retrieval.passages import span_of
from graphmem.retrieval.cache_refresh import VECTOR_BATCH, refresh_entry  # noqa: F401
from graphmem.retrieval.vectors import (CACHE_UNITS, INLINE_READ, LOAD_AFTER_MISSES,
                                        NamespaceVectors, cache_enabled, vector_cache_of)
from graphmem.retrieval.text import (archived_token, candidate_terms, index_terms, lucene_query,
                                     mention_terms, namespace_token)
from graphmem.retrieval.units import unit_rows, window_texts
from graphmem.timeparse import check_window, window_params

logger = logging.getLogger(__name__)

#: Lexical candidates per round (the namespace's exact BM25 top-k from the vector cache's lexicon
#: when it holds every unit, :mod:`graphmem.retrieval.lexical`; else top by Lucene). 50: on LoCoMo
#: leave-one-conversation-out the bounded candidate set keeps the all-units figure (K =
#: 25/50/100/200/all: .755/.751/.749/.750/.739, differences within noise) while S stays ≈ 190
#: units; the round costs 12 ms instead of 16 ms at K = 100 (a 419-unit tenant among 100,000
#: units); on the full-text path BM25 is exact for a namespace whose matches of the question fit in K.
LEXICAL_K = 50
#: Dense candidates per round (same reason and measurement as LEXICAL_K).
DENSE_K = 50
#: Namespaces with at most this many units are scanned exactly (cosine against every unit) instead of
#: querying the vector index. Measured (tests/integration/test_retrieval_engine.py, a 2,000-unit
#: tenant among 50,000 foreign units, whole search round p50): exact scan 182 / 117 ms vs vector index
#: 211 / 184 ms in two runs -- at 2,000 units the scan is no slower, and it is exact (the index query
#: post-filters a global top list by namespace, so it can starve a small tenant).
EXACT_LIMIT = 2000
#: Vector-index query size before the namespace filter: max(OVERSAMPLE_FACTOR · DENSE_K, MIN_OVERSAMPLE).
OVERSAMPLE_FACTOR = 10
MIN_OVERSAMPLE = 500
#: Per-term document-frequency count cap (df beyond it saturates; idf is then ≈ 0 anyway).
DF_CAP = 100_000

QUERY = {"Event": "retrieval/search_units@Event", "Episode": "retrieval/search_units@Episode"}
#: Messages of the Neo4j error a stored vector that cosine cannot score raises in the fast round.
BAD_VECTOR_MESSAGES = ("is not a valid vector", "do not have the same dimension")
#: A step's bonus (in fused-score units, [0, 1] scale) from which the path names it: smaller
#: bonuses do not decide the rank, and the path then shows how the unit itself was found.
BOOST_PATH_MIN = 0.05
#: The relationship between consecutive units of one session (older → newer).
NEXT_TURN = "NEXT_TURN"


class HybridSearch:
    """Hybrid lexical + dense + neighbour search over one unit label.

    Args:
        runner: a :class:`graphmem.graph.runner.QueryRunner` (anything with ``read(name, **params)``).
        label: ``"Event"`` (state memory) or ``"Episode"`` (associative memory).
        params: fusion parameters (defaults: :mod:`graphmem.retrieval.fusion` constants).
        lexical_k, dense_k, exact_limit: candidate sizes (see the module constants).
        cache_limit: namespaces up to this many units are scored from the in-process vector
            cache once loaded (:mod:`graphmem.retrieval.vectors`; 0: never).
    """

    def __init__(self, runner: Any, label: Literal["Event", "Episode"] = "Event",
                 params: fusion.FusionParams | None = None, lexical_k: int = LEXICAL_K,
                 dense_k: int = DENSE_K, exact_limit: int = EXACT_LIMIT,
                 cache_limit: int = CACHE_UNITS):
        if label not in QUERY:
            raise InvalidInputError(f"HybridSearch: label must be one of {sorted(QUERY)}, got {label!r}")
        self.runner = runner
        self.label = label
        self.query = QUERY[label]
        self.params = params or fusion.FusionParams()
        self.lexical_k = lexical_k
        self.dense_k = dense_k
        self.exact_limit = exact_limit
        self.cache_limit = cache_limit
        self.last_details: dict[str, Any] = {}
        self.last_fused: list[fusion.Fused] = []
        self.last_median = 0.0
        #: The scored units of the last row ranked (``(id(row), terms)``, scores, the row kept
        #: alive so its id is not reused).
        self._scored: tuple[Any, Any, Any] | None = None

    def search(self, namespace: str, question: str, query_vector: Sequence[float],
               k: int = 10, *, since: Any = None, until: Any = None,
               include_archived: bool = False) -> list[Candidate]:
        """The ``k`` best units of ``namespace`` for ``question`` (best first).

        Args:
            namespace: the tenant.
            question: the question text (analyzed with :func:`graphmem.retrieval.text.analyze`).
            query_vector: the question's embedding (same model and width as the window vectors).
            k: items returned.
            since, until: only units with ``since <= occurred_at < until`` (time-zone-aware
                datetimes; None: open on that side; :func:`graphmem.timeparse.check_window`).
            include_archived: also units archived by retention (default: left out).

        Raises:
            InvalidInputError: empty question, k < 1, empty or non-finite query vector, a naive
                or empty window, an ``include_archived`` that is not a bool.
            DatabaseError: the round query failed for another reason than a bad stored vector.
        """
        return self.rank(self.fetch(namespace, question, query_vector, since=since, until=until,
                                    include_archived=include_archived), index_terms(question), k)

    def fetch(self, namespace: str, question: str, query_vector: Sequence[float], *,
              since: Any = None, until: Any = None,
              include_archived: bool = False) -> dict[str, Any]:
        """:meth:`_fetch` for ``question`` with its terms expanded by the aliases of the people
        it names (:mod:`graphmem.retrieval.aliases`; the row's ``aliases`` holds them for
        :meth:`rank`). They are cached per runner under the namespace's unit version and read
        again (one query) only when a round's token differs, the round then run again only if
        the question's expansion changed. A runner without ``alias_cache`` has no people step."""
        cache = alias_cache_of(self.runner)
        scope = {"since": since, "until": until, "include_archived": include_archived}
        if cache is None or not question or not question.strip():
            return self._fetch(namespace, question, query_vector, **scope)
        key, terms = (self.label, namespace), index_terms(question)
        people = cache.get(key) or read_aliases(self.runner, self.label, namespace)
        cache.put(key, people)
        extra = people.expansion(terms)
        row = self._fetch(namespace, " ".join([question, *extra]), query_vector, **scope)
        if row and _token(row) != people.token:
            # read after the round: at least as new as its token, kept under it
            people = replace(read_aliases(self.runner, self.label, namespace), token=_token(row))
            cache.put(key, people)
            if people.expansion(terms) != extra:
                row = self._fetch(namespace, " ".join([question, *people.expansion(terms)]),
                                  query_vector, **scope)
        if row:
            row["aliases"] = people
        return row

    def _fetch(self, namespace: str, question: str, query_vector: Sequence[float], *,
               since: Any = None, until: Any = None,
               include_archived: bool = False) -> dict[str, Any]:
        """The round query's one row for ``question`` (see :meth:`search` for the arguments and
        errors), its ``units`` as dicts (:data:`UNIT_COLUMNS`), only units inside the window
        ``since <= occurred_at < until`` and not archived (unless ``include_archived``). The
        dense side comes from the in-process vector cache (:mod:`graphmem.retrieval.vectors`)
        when it holds the namespace at the row's token, else from the database (exact scan or
        vector index)."""
        if not question or not question.strip():
            raise InvalidInputError("search: question is empty")
        vector = [float(x) for x in query_vector]
        if not vector or not all(math.isfinite(x) for x in vector):
            raise InvalidInputError("search: query vector is empty or not finite")
        if not isinstance(include_archived, bool):
            raise InvalidInputError(f"include_archived must be True or False, got "
                                    f"{include_archived!r}")
        window = window_params(*check_window(since, until))
        windowed = window["since"] is not None or window["until"] is not None
        terms = index_terms(question)
        token, archived = namespace_token(namespace), archived_token(namespace)
        also = archived if include_archived else None  # the lexical query's second token
        params = dict(
            namespace=namespace, ns_token=token, archived_token=archived,
            include_archived=include_archived,
            lucene_query=lucene_query(token, terms, archived=also),
            terms=list(dict.fromkeys(terms)), embedding=vector, lexical_k=self.lexical_k,
            dense_k=self.dense_k, oversample=max(OVERSAMPLE_FACTOR * self.dense_k, MIN_OVERSAMPLE),
            exact_limit=self.exact_limit, df_cap=DF_CAP, guard=False, cached=False, dense_ids=[],
            dense_sims=[], known_terms=[], known_speakers=[], stats=None, lexical_cached=False,
            lexical_ids=[], **window)
        cache = vector_cache_of(self.runner) if cache_enabled() else None
        key = (self.label, namespace, len(vector))
        entry = cache.get(key) if cache is not None else None
        if entry is not None and (len(entry.stamps) > self.cache_limit
                                  or (windowed and not entry.has_times)):
            entry = None
        query = np.asarray(vector, dtype=np.float32)
        for _ in range(2):
            if entry is None:
                break
            ids, sims = entry.top(query, self.dense_k, window["since"], window["until"],
                                  include_archived)
            known = [t for t in params["terms"] if entry.df_known(t)]
            selective = candidate_terms(params["terms"], entry.dfs,
                                        entry.stats[0] if entry.stats else 0)
            # the namespace's exact BM25 top-k when the entry holds every unit (no full-text call)
            lexical = entry.lexical_top(terms, self.lexical_k, window["since"], window["until"],
                                        self.params.k1, self.params.b, include_archived)
            row = self._round({**params, "cached": True, "dense_ids": ids, "dense_sims": sims,
                               "lexical_cached": lexical is not None, "lexical_ids": lexical or [],
                               "lucene_query": lucene_query(token, selective, archived=also),
                               "known_terms": known, "known_speakers": sorted(entry.speakers),
                               "stats": None if entry.stats is None else list(entry.stats)})
            if _token(row) == entry.token:
                speakers = (unit[SPEAKER] for unit in row.get("units") or [])
                return self._with_cache_dense(entry.complete(row, params["terms"], speakers),
                                              entry, query)
            entry = self._refresh(cache, key, entry, namespace, len(vector))
            if entry is not None and windowed and not entry.has_times:
                entry = None
        row = self._round(params)
        n_units = int(row.get("n_units") or 0) if row else 0
        if cache is not None and 0 < n_units <= self.cache_limit \
                and (cache.get(key) is not None or cache.miss(key) >= LOAD_AFTER_MISSES):
            if n_units <= INLINE_READ:
                self._refresh(cache, key, cache.get(key), namespace, len(vector))
            else:
                cache.in_background(key, lambda: self._refresh(
                    cache, key, cache.get(key), namespace, len(vector), inline=False))
        return self._as_dicts(row)

    def _round(self, params: dict[str, Any]) -> dict[str, Any]:
        """Run the round query once (again with ``guard`` on when a stored vector cannot be
        scored); its row with ``units`` still as column lists."""
        try:
            rows = self.runner.read(self.query, **params)
        except QueryError as exc:
            if not any(m in str(exc) for m in BAD_VECTOR_MESSAGES):
                raise
            logger.warning("namespace %r holds %s vectors that cosine cannot score (NaN, infinity, "
                           "all zeros or another width); they are skipped -- `graphmem doctor "
                           "--repair -n %s` re-embeds them", params["namespace"], self.label,
                           params["namespace"])
            rows = self.runner.read(self.query, **{**params, "guard": True})
        return dict(rows[0]) if rows else {}

    @staticmethod
    def _as_dicts(row: dict[str, Any]) -> dict[str, Any]:
        if row:
            row["units"] = [dict(zip(UNIT_COLUMNS, unit, strict=True)) for unit in row.get("units") or []]
        return row

    def _with_cache_dense(self, row: dict[str, Any], entry: NamespaceVectors,
                          query: np.ndarray) -> dict[str, Any]:
        """The row with the dense score of every unit the cache scored (dense candidates came
        with it) and the passage that gave it."""
        row = self._as_dicts(row)
        for unit, best in zip(row["units"], entry.best(query, [u["id"] for u in row["units"]]),
                              strict=True):
            if best is not None:
                if unit["dense"] is None:
                    unit["dense"] = best[0]
                unit["passage"] = best[1]
        return row

    def _refresh(self, cache: Any, key: tuple[str, str, int], entry: NamespaceVectors | None,
                 namespace: str, width: int, inline: bool = True) -> NamespaceVectors | None:
        """Bring the cache of ``key`` to the namespace's stored units
        (:func:`graphmem.retrieval.cache_refresh.refresh_entry`); None when it is not cached
        (more than :attr:`cache_limit` units, or a load left to the background loader)."""
        return refresh_entry(self.runner, self.label, cache, key, entry, namespace, width,
                             self.cache_limit, inline)

    def rank(self, row: dict[str, Any], terms: Sequence[str], k: int,
             graph: dict[str, tuple[float, str | None]] | None = None,
             graph_paths: dict[str, list[PathStep]] | None = None) -> list[Candidate]:
        """Score and fuse the round query's row (pure; unit-tested with a fake runner). A later
        round of a memory re-ranks the same row with its graph step (``graph``: ``{unit id: (g_i,
        source id)}``, fusion step 6) and the paths that earned it (``graph_paths``); after each
        call :attr:`last_fused` holds every unit of S fused (best first) and :attr:`last_median`
        the median fused score, so a memory can weigh its sources' excess.

        Raises:
            InvalidInputError: k < 1.
        """
        if k < 1:
            raise InvalidInputError(f"search: k must be >= 1, got {k}")
        units = list(row.get("units") or [])
        if not units:
            self.last_details = {"units": int(row.get("n_units") or 0), "candidates": 0}
            return []
        people = row.get("aliases")  # set by fetch: the namespace's person aliases
        if people is not None:  # the expanded question's terms, as fetch sent them
            terms = [*terms, *index_terms(" ".join(people.expansion(terms)))]
        n_units = int(row["n_units"])
        avg_length = float(row["avg_length"] or 0.0)
        df = {t: int(d) for t, d in row["dfs"]}
        speakers = {str(s): int(c) for s, c in row.get("speakers") or []}
        memo = (id(row), tuple(terms))
        if self._scored is not None and self._scored[0] == memo:
            scores, by_id, names = self._scored[1]  # a later round re-ranks the same row
        else:
            scores, by_id = [], {}
            for unit in units:
                doc = (unit.get("lexical_terms") or "").split()
                dense = unit.get("dense")
                if dense is not None and not math.isfinite(dense):
                    dense = None
                scores.append(fusion.UnitScore(
                    id=unit["id"], lexical=fusion.bm25(terms, doc, df, n_units, avg_length,
                                                       self.params.k1, self.params.b),
                    dense=dense, is_cue=bool(unit.get("is_cue")), prev_id=unit.get("prev_id"),
                    next_id=unit.get("next_id"), speaker=unit.get("speaker"), terms=frozenset(doc)))
                by_id[unit["id"]] = unit
            names = people.names(speakers) if people is not None else {
                name: mention_terms(name) for name in speakers}
            self._scored = (memo, (scores, by_id, names), row)
        fused = fusion.fuse(scores, self.params, terms, speakers, n_units, names, graph)
        self.last_fused = fused
        self.last_median = statistics.median(f.fused for f in fused)
        self.last_details = {"units": n_units, "candidates": len(units),
                             "dense_mode": row.get("dense_mode"), "avg_length": avg_length,
                             "df": df, "speakers": speakers}
        kind = self.label.lower()
        out = []
        for f in fused[:k]:
            unit = by_id[f.id]
            flags = {"via_lexical": bool(unit.get("via_lexical")),
                     "via_dense": bool(unit.get("via_dense")),
                     "is_cue": bool(unit.get("is_cue")),
                     "is_smalltalk": bool(unit.get("is_smalltalk"))}
            flags["via_neighbour"] = not (flags["via_lexical"] or flags["via_dense"])
            components = {key: value for key, value in f.components.items()
                          if not (isinstance(value, float) and math.isnan(value))}
            out.append(Candidate(id=f.id, score=f.final, components=components, flags=flags,
                                 source_ids=list(unit.get("source_ids") or []),
                                 text=unit.get("text") or "", speaker=unit.get("speaker"),
                                 passage=span_of(unit.get("passage_spans"), unit.get("passage"))
                                 if unit.get("dense") is not None else None,
                                 path=(list(graph_paths[f.id]) if graph_paths and f.id in graph_paths
                                       and f.graph >= BOOST_PATH_MIN
                                       and f.graph >= max(f.entity, f.neighbour)
                                       else self._path(f, by_id, kind))))
        return out

    @staticmethod
    def _seed(unit: dict[str, Any], kind: str) -> PathStep:
        action = "lexical_seed" if unit.get("via_lexical") else (
            "dense_seed" if unit.get("via_dense") else "neighbour")
        return PathStep(action=action, node=kind, id=unit["id"],
                        text=(unit.get("text") or "")[:80])

    def _path(self, f: fusion.Fused, by_id: dict[str, dict[str, Any]], kind: str) -> list[PathStep]:
        """How the unit was found: its seed; or, when the neighbour step raised it most, the cue
        unit's seed then a ``NEXT_TURN`` hop; or, when the entity step did, the mentioning source
        (the question or a unit's seed), a ``mentions`` step to the speaker and ``SPEAKER_OF``."""
        unit = by_id[f.id]
        here = (unit.get("text") or "")[:80]
        if f.entity >= BOOST_PATH_MIN and f.entity >= f.neighbour and f.entity_from is not None:
            speaker = str(unit.get("speaker") or "")
            head = ([] if f.entity_from == fusion.QUESTION else [self._seed(by_id[f.entity_from], kind)])
            return [*head, PathStep(action="mentions", node="speaker", id=speaker, text=speaker),
                    PathStep(action="SPEAKER_OF", node=kind, id=f.id, text=here)]
        if f.neighbour >= BOOST_PATH_MIN and f.neighbour_from is not None:
            return [self._seed(by_id[f.neighbour_from], kind),
                    PathStep(action=NEXT_TURN, node=kind, id=f.id, text=here)]
        return [self._seed(unit, kind)]


__all__ = ["Candidate", "HybridSearch", "UNIT_COLUMNS", "stored_time", "unit_rows", "window_texts", "NEXT_TURN", "EXACT_LIMIT",
           "LEXICAL_K", "DENSE_K"]

"""Score fusion of the hybrid retrieval engine (pure: no I/O).

For one question and one namespace, the engine's single Cypher query returns a bounded set S of
units: the top-``LEXICAL_K`` full-text matches ∪ the top-``DENSE_K`` dense matches ∪ their session
neighbours (one ``NEXT_TURN`` hop). For every unit i ∈ S:

1. Lexical: Lucene-variant BM25 over the unit's analyzed terms with **per-namespace** statistics
   (N = the namespace's unit count, avgdl = their mean length, df = matches of the term within the
   namespace)::

       l_i = Σ_{t ∈ q} idf(t) · tf(t,i)·(k1 + 1) / (tf(t,i) + k1·(1 − b + b·|i|/avgdl))
       idf(t) = ln(1 + (N − df_t + 0.5) / (df_t + 0.5))

2. Dense: d_i = cos(q, v_i), v_i the stored vector of the unit's window text (previous + this +
   next turn of the session). A unit without a usable vector gets d̂_i = 0.
3. Min-max normalise each over S (x̂ = (x − min_S x)/(max_S x − min_S x); 0 when flat) and fuse::

       f_i = α·l̂_i + (1 − α)·d̂_i

4. Neighbour step (cue-gated): a question or a short fragment passes its excess score to the turns
   before and after it, where the answer or the context sits (a cue of more than
   :data:`CUE_MAX_TERMS` distinct terms carries its own content and passes nothing)::

       n_i = max_{j ∈ {prev(i), next(i)} ∩ S, cue_j} max(0, f_j − median_S f)

5. Entity step (speaker / entity aware): the question and the :data:`ENTITY_SOURCES` best units
   (by ``f + β·n``) *mention* an entity when they contain every term of its name
   (:func:`graphmem.retrieval.text.mention_terms`) or of one of its aliases (a speaker's
   nicknames and handle parts, :mod:`graphmem.retrieval.aliases`); the entities are the units' speakers (in a
   document collection, the title in the speaker slot). The units *of* a mentioned entity get a share
   of the mentioning source's excess, weighted by how specific the entity is in the namespace::

       w(s) = ln(N / n_s) / ln(N)                  (n_s = the namespace's units of speaker s)
       e_i = max_{sources m mentioning speaker(i), speaker(m) ≠ speaker(i)} w(speaker(i))·x_m
       x_m = max(0, f_m − median_S f) for a unit, max_S f − median_S f for the question

   so a name that owns half of a two-person chat moves little (w ≈ 0.1), a title that owns one
   paragraph of ten moves its paragraph (w ≈ 0.6): the bridge step of multi-hop questions ("the
   woman who portrayed X" -> the paragraph of the actress named next to X).

6. Graph step (the memory's own structure, a later round): a memory may add, per unit of S, a
   bonus ``g_i = γ·w·x_m`` for a path from a source m (the question or a unit of S) over its own
   edges (cue → tag → content for associative memory, the topic chain for state memory), ``w`` the
   specificity of the edge's entry point and ``x_m`` the source's excess as above; it is computed by
   the memory and passed in as ``graph``::

       final_i = f_i + β·n_i + δ·e_i + g_i

Rank by ``final`` (ties by id). Every component is kept per unit.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

#: Lexical weight of the convex fusion (dense gets 1 − α). 0.45: the median of the three LoCoMo
#: leave-one-conversation-out folds' choices (0.45 / 0.45 / 0.45 on the grid α ∈ 0.30..0.70 step 0.05,
#: β ∈ {0.4, 0.6, 0.8}, bounded candidates K = 100; docs/retrieval.md). The optimum is flat between
#: 0.40 and 0.50 (within one paired standard error, ≈ 0.6 pt); 0.30 costs 2 pt, 0.60 costs 1.5–3 pt.
ALPHA = 0.45
#: Neighbour weight. 0.8: the median of the fold choices (0.6 / 0.8 / 0.8). Flat between 0.6 and
#: 0.8 (0.6 is −0.25 pt); 0.4 costs 1–2 pt and removing the step 7 pt (first study).
BETA = 0.8
#: Entity weight. 1.0: LoCoMo leave-one-conversation-out is flat in δ ∈ [0, 1.5] (recall@10 .757 →
#: .762 in-sample with the question as a source), HotpotQA supporting-fact recall@10 rises from
#: .818 to .871 (BM25 .831) -- the bridge paragraphs of multi-hop questions (docs/retrieval.md).
DELTA = 1.0
#: The longest cue (in distinct analyzed terms, stop words left out) whose excess the neighbour step passes
#: on: a question asked inside a long message carries its own content (an agent chat's user
#: request: "I'm on Node 18 with Express 4.18 ... can you review this?"), and lifting the reply
#: after it only pushes other evidence out. 40: leave-one-conversation-out over the pooled dev
#: conversations (LoCoMo dev 3 + BEAM chats 1-3, a fold's choice = the best mean of the per-corpus
#: means of the other conversations, grid 15 / 25 / 40 / no cap x alpha 0.45 / 0.6) picks 40 (and
#: alpha 0.45) in all six folds. Fused recall@10 at 15 / 25 / 40 / no cap: LoCoMo .715 / .730 /
#: .765 / .770, BEAM .520 / .520 / .520 / .343 (docs/retrieval.md): LoCoMo's cues are short
#: questions (cap 40 costs it half a point), an agent chat's long requests are not cues to follow.
CUE_MAX_TERMS = 40
#: Best units (besides the question) whose mentions are followed by the entity step.
ENTITY_SOURCES = 3
#: BM25 term-frequency saturation (Lucene / bm25s default; the baseline it is compared with).
K1 = 1.5
#: BM25 length normalisation (Lucene / bm25s default).
B = 0.75


@dataclass(frozen=True)
class FusionParams:
    """The few named parameters of the fusion (defaults = the module constants above)."""

    alpha: float = ALPHA
    beta: float = BETA
    delta: float = DELTA
    k1: float = K1
    b: float = B
    entity_sources: int = ENTITY_SOURCES
    cue_max_terms: int = CUE_MAX_TERMS


def idf(df: int, n: int) -> float:
    """Lucene BM25 idf: ``ln(1 + (N − df + 0.5)/(df + 0.5))`` (always > 0)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def bm25(query_terms: Sequence[str], doc_terms: Sequence[str], df: Mapping[str, int], n: int,
         avg_length: float, k1: float = K1, b: float = B) -> float:
    """BM25 of one document (its analyzed terms) for a query (analyzed terms, repeats counted),
    with the collection statistics ``df`` (per term), ``n`` documents and ``avg_length``."""
    if not doc_terms or n <= 0:
        return 0.0
    tf = Counter(doc_terms)
    norm = k1 * (1.0 - b + b * len(doc_terms) / (avg_length if avg_length > 0 else 1.0))
    score = 0.0
    for t in query_terms:
        c = tf.get(t, 0)
        if c:
            score += idf(min(df.get(t, 1), n), n) * c * (k1 + 1.0) / (c + norm)
    return score


def minmax(values: Sequence[float | None]) -> list[float]:
    """Min-max normalisation over the non-None values; None and a flat list give 0."""
    present = [v for v in values if v is not None]
    if not present:
        return [0.0] * len(values)
    lo, hi = min(present), max(present)
    if hi <= lo:
        return [0.0] * len(values)
    return [0.0 if v is None else (v - lo) / (hi - lo) for v in values]


@dataclass
class UnitScore:
    """The raw inputs of one unit in S."""

    id: str
    lexical: float
    dense: float | None
    is_cue: bool = False
    prev_id: str | None = None
    next_id: str | None = None
    speaker: str | None = None
    terms: frozenset[str] = frozenset()


@dataclass
class Fused:
    """One unit's score components and final score."""

    id: str
    lexical: float
    dense: float | None
    lexical_norm: float
    dense_norm: float
    fused: float
    neighbour: float
    final: float
    neighbour_from: str | None = None
    entity: float = 0.0
    entity_from: str | None = None
    graph: float = 0.0
    graph_from: str | None = None
    components: dict[str, float] = field(default_factory=dict)


def specificity(units_of_entity: int, n_units: int) -> float:
    """``ln(N / n_s) / ln(N)`` in [0, 1]: 0 for an entity that owns every unit (or N < 2), near 1
    for one that owns a single unit of many."""
    if n_units < 2 or units_of_entity < 1:
        return 0.0
    return max(0.0, math.log(n_units / min(units_of_entity, n_units)) / math.log(n_units))


#: An entity's mention terms: one tuple (every term must be present) or a list of alternative
#: tuples (one alternative suffices: a person's aliases, :mod:`graphmem.retrieval.aliases`).
Mention = tuple[str, ...] | Sequence[tuple[str, ...]]


def alternatives(need: Mention) -> list[tuple[str, ...]]:
    """The alternative term tuples of one entity's mention terms (a plain tuple is one)."""
    if not need:
        return []
    return [tuple(need)] if isinstance(need[0], str) else [tuple(t) for t in need]  # type: ignore[arg-type]


def mentioned(terms: frozenset[str] | set[str], names: Mapping[str, Mention],
              own: str | None = None) -> list[str]:
    """The entities of ``names`` (entity -> its :func:`~graphmem.retrieval.text.mention_terms`,
    or a list of alternatives, :func:`~graphmem.retrieval.text.mention_alternatives`) of which
    ``terms`` holds every term of one alternative, other than ``own``."""
    return [name for name, need in names.items()
            if name != own and any(alt and all(t in terms for t in alt)
                                   for alt in alternatives(need))]


def fuse(units: Sequence[UnitScore], params: FusionParams = FusionParams(),
         question_terms: Sequence[str] = (), entity_units: Mapping[str, int] | None = None,
         n_units: int = 0, names: Mapping[str, Mention] | None = None,
         graph: Mapping[str, tuple[float, str | None]] | None = None) -> list[Fused]:
    """Fuse the units of S (see the module docstring); best first, ties by id.

    Args:
        units: the units of S with their raw scores.
        params: α, β, δ, BM25 constants, entity sources.
        question_terms: the question's analyzed terms (the question is an entity-step source).
        entity_units: units per speaker in the namespace (``n_s``); None or ``{}`` turns the
            entity step off.
        n_units: N, the namespace's unit count.
        names: speaker -> mention terms, or a list of alternative term tuples (a person's
            aliases: any one mentions the speaker); default: computed from the speakers of
            ``units``.
        graph: ``{unit id: (g_i, source id)}`` of the graph step (step 6), already weighted.
    """
    if not units:
        return []
    ln = minmax([u.lexical for u in units])
    dn = minmax([u.dense for u in units])
    f = {u.id: params.alpha * a + (1.0 - params.alpha) * d for u, a, d in zip(units, ln, dn)}
    median = statistics.median(f.values())
    cue = {u.id: u.is_cue and len(u.terms) <= params.cue_max_terms for u in units}
    neighbour: dict[str, tuple[float, str | None]] = {}
    for u in units:
        best, source = 0.0, None
        for j in (u.prev_id, u.next_id):
            if j is not None and j in f and cue[j]:
                excess = f[j] - median
                if excess > best:
                    best, source = excess, j
        neighbour[u.id] = (params.beta * best, source)
    entity = _entity_step(units, f, neighbour, median, params, question_terms,
                          entity_units or {}, n_units, names)
    out = []
    for u, a, d in zip(units, ln, dn):
        nb, source = neighbour[u.id]
        ent, ent_from = entity.get(u.id, (0.0, None))
        gr, gr_from = (graph or {}).get(u.id, (0.0, None))
        final = f[u.id] + nb + ent + gr
        out.append(Fused(id=u.id, lexical=u.lexical, dense=u.dense, lexical_norm=a, dense_norm=d,
                         fused=f[u.id], neighbour=nb, final=final, neighbour_from=source,
                         entity=ent, entity_from=ent_from, graph=gr, graph_from=gr_from,
                         components={"lexical": u.lexical, "dense": u.dense if u.dense is not None
                                     else float("nan"), "lexical_norm": a, "dense_norm": d,
                                     "fused": f[u.id], "neighbour": nb, "entity": ent,
                                     "graph": gr, "final": final}))
    out.sort(key=lambda x: (-x.final, x.id))
    return out


#: The entity-step source id of the question itself.
QUESTION = "question"


def _entity_step(units: Sequence[UnitScore], f: Mapping[str, float],
                 neighbour: Mapping[str, tuple[float, str | None]], median: float,
                 params: FusionParams, question_terms: Sequence[str],
                 entity_units: Mapping[str, int], n_units: int,
                 names: Mapping[str, Mention] | None) -> dict[str, tuple[float, str | None]]:
    """``{unit id: (δ·e_i, source id)}`` of the entity step (module docstring, step 5)."""
    if params.delta <= 0 or not entity_units:
        return {}
    from graphmem.retrieval.text import mention_terms

    if names is None:
        names = {u.speaker: mention_terms(u.speaker) for u in units if u.speaker}
    by_id = {u.id: u for u in units}
    ranked = sorted(units, key=lambda u: (-(f[u.id] + neighbour[u.id][0]), u.id))
    sources: list[tuple[str, frozenset[str] | set[str], str | None, float]] = [
        (QUESTION, set(question_terms), None, max(f.values()) - median)]
    for u in ranked[:params.entity_sources]:
        sources.append((u.id, u.terms, u.speaker, max(0.0, f[u.id] - median)))
    bonus: dict[str, tuple[float, str | None]] = {}
    weight = {s: specificity(int(entity_units.get(s, 0)), n_units) for s in names}
    best_for: dict[str, tuple[float, str]] = {}
    for source, terms, own, excess in sources:
        if excess <= 0:
            continue
        for name in mentioned(terms, names, own):
            value = weight[name] * excess
            if value > best_for.get(name, (0.0, ""))[0]:
                best_for[name] = (value, source)
    for uid, u in by_id.items():
        if u.speaker in best_for:
            value, source = best_for[u.speaker]
            if source != uid:
                bonus[uid] = (params.delta * value, source)
    return bonus

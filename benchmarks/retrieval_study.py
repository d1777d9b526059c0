"""Offline study of the hybrid retrieval engine (graphmem.retrieval) on LoCoMo and HotpotQA.

Scores every question exactly as :class:`graphmem.retrieval.HybridSearch` ranks it, without Neo4j:
per-namespace BM25 (:func:`graphmem.retrieval.fusion.bm25`) over the units' lexical text
(:func:`graphmem.retrieval.text.lexical_text`), MiniLM cosine against the window vectors
(:func:`graphmem.retrieval.text.window_texts`), the bounded candidate set S (top-``LEXICAL_K``
lexical matches with BM25 > 0 ∪ top-``DENSE_K`` dense ∪ their session neighbours) and
:func:`graphmem.retrieval.fusion.fuse`. One namespace = one LoCoMo conversation, or one HotpotQA
example (unit = sentence, session = paragraph, speaker = title, no dates).

Prints ONE JSON document:

- ``locomo``: recall@10 per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
  5 adversarial) and overall, leave-one-conversation-out, for BM25 over ``speaker: text``, MiniLM
  cosine of the single turn, RRF(BM25, cosine) with k = 60, the engine with the shipped
  parameters (``fusion.ALPHA``, ``fusion.BETA``) and the engine with (α, β) chosen on the other
  conversations (grid α 0.30…0.70 step 0.05 × β {0.4, 0.6, 0.8}); an ablation with the shipped
  parameters (lexical only, dense only, fused without neighbours, + neighbours);
- ``hotpotqa``: supporting-fact recall@5 and @10 for BM25, cosine (single sentence), dense window
  only and the engine (shipped parameters, no tuning).

Data: ``--data DIR`` or ``GRAPHMEM_DATA``, through :func:`graphmem.datasets.resolve`; without
either, the bundled samples (2 LoCoMo conversations, 20 HotpotQA questions; leave-one-out then
rotates over the 2 conversations). Vectors are cached under ``--cache DIR`` (one ``.npy`` per text
list, keyed by its content), so a second run embeds nothing.

    GRAPHMEM_DATA=/path/to/data python benchmarks/retrieval_study.py
    python benchmarks/retrieval_study.py --data /path/to/data --cache vectors
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402

from graphmem.datasets import resolve  # noqa: E402
from graphmem.retrieval import engine, fusion, text  # noqa: E402

#: recall@k of the LoCoMo tables (HotpotQA reports 5 and 10).
K = 10
#: Reciprocal-rank-fusion constant of the RRF baseline.
RRF_K = 60
#: The (α, β) grid of the leave-one-conversation-out selection.
ALPHAS = [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70]
BETAS = [0.4, 0.6, 0.8]
SHIPPED = (fusion.ALPHA, fusion.BETA)
DEFAULT_CACHE = Path(".graphmem/cache/retrieval-study")


# ----------------------------------------------------------------------------- embeddings
class CachedEmbedder:
    """MiniLM (:class:`graphmem.embeddings.SentenceTransformerEmbedder`, one torch thread) with an
    on-disk cache: ``<cache>/<tag>-<sha1 of the texts>.npy``."""

    def __init__(self, cache: Path):
        self.cache = cache
        self.cache.mkdir(parents=True, exist_ok=True)
        self._model = None
        self.embedded = 0

    def __call__(self, texts: list[str], tag: str) -> np.ndarray:
        digest = hashlib.sha1("\x1e".join(texts).encode("utf-8")).hexdigest()[:16]
        path = self.cache / f"{tag}-{digest}.npy"
        if path.exists():
            return np.load(path)
        if self._model is None:
            import torch

            torch.set_num_threads(1)
            from graphmem.embeddings import SentenceTransformerEmbedder

            self._model = SentenceTransformerEmbedder()
        vectors = self._model.embed_documents(texts).astype(np.float32)
        self.embedded += len(texts)
        np.save(path, vectors)
        return vectors


# ----------------------------------------------------------------------------- data
def normalise_gold(ids: list[str], valid: set[str]) -> list[str]:
    """LoCoMo evidence ids as dia_ids of the conversation: splits lists (``"D8:6; D9:17"``),
    repairs ``D:11:26`` / ``D30:05``, drops ids that do not exist."""
    out: list[str] = []
    for raw in ids:
        for piece in re.split(r"[;\s,]+", str(raw).strip()):
            m = re.match(r"^D:?(\d+):0*(\d+)$", piece)
            gold = f"D{int(m.group(1))}:{int(m.group(2))}" if m else piece
            if gold in valid and gold not in out:
                out.append(gold)
    return out


def load_locomo(path: Path) -> list[dict]:
    """Conversations as ``{id, units, questions}``; questions without usable evidence are
    skipped."""
    from graphmem.conversations import read_locomo

    out = []
    for conv in read_locomo(path):
        units = [{"key": t.source_id, "speaker": t.speaker, "text": t.text, "session": t.session,
                  "timestamp": t.timestamp} for t in conv.turns]
        valid = {u["key"] for u in units}
        questions = []
        for qa in conv.qa:
            gold = normalise_gold(qa.evidence, valid)
            if gold:
                questions.append({"question": qa.question, "category": qa.category, "gold": gold})
        out.append({"id": conv.id, "units": units, "questions": questions})
    return out


def load_hotpot(path: Path) -> list[dict]:
    """One namespace per example: its context sentences (speaker = title, session = paragraph)."""
    out = []
    for ex in json.loads(path.read_text(encoding="utf-8")):
        units = []
        for p, (title, sentences) in enumerate(zip(ex["context"]["title"],
                                                   ex["context"]["sentences"])):
            for j, sentence in enumerate(sentences):
                units.append({"key": (title, j), "speaker": title,
                              "text": sentence.strip() or title, "session": f"p{p}",
                              "timestamp": None})
        valid = {u["key"] for u in units}
        gold = [g for g in dict.fromkeys(zip(ex["supporting_facts"]["title"],
                                             ex["supporting_facts"]["sent_id"])) if g in valid]
        if gold:
            out.append({"id": ex["id"], "units": units,
                        "questions": [{"question": ex["question"], "category": ex["type"],
                                       "gold": gold}]})
    return out


# ----------------------------------------------------------------------------- scoring
def bm25_matrix(docs: list[list[str]], queries: list[list[str]]) -> np.ndarray:
    """``(questions, units)`` per-namespace BM25 (:func:`fusion.bm25`, the namespace's own N,
    avgdl and df); units sharing no term with a question score 0 without being visited."""
    n = len(docs)
    avg = sum(len(d) for d in docs) / n if n else 0.0
    postings: dict[str, set[int]] = defaultdict(set)
    for i, doc in enumerate(docs):
        for t in doc:
            postings[t].add(i)
    df = {t: len(ids) for t, ids in postings.items()}
    out = np.zeros((len(queries), n))
    for qi, terms in enumerate(queries):
        for i in set().union(*(postings.get(t, set()) for t in terms)) if terms else ():
            out[qi, i] = fusion.bm25(terms, docs[i], df, n, avg, fusion.K1, fusion.B)
    return out


def prepare(namespaces: list[dict], embed: CachedEmbedder, tag: str,
            words: int = text.CONTEXT_WORDS) -> None:
    """Adds to every namespace the per-question score matrices: ``bm25_plain`` (``speaker: text``),
    ``lexical`` (the engine's BM25 over ``lexical_text``), ``cosine`` (single unit),
    ``dense`` (window vector, ``words`` words of each session neighbour), and the unit features
    the fusion needs."""
    questions = [q["question"] for ns in namespaces for q in ns["questions"]]
    qv = embed(questions, f"{tag}-questions")
    single = embed([text.turn_base_text(u) for ns in namespaces for u in ns["units"]],
                   f"{tag}-single")
    window = embed([w for ns in namespaces for w in engine.window_texts(ns["units"], words)],
                   f"{tag}-window")
    qo = uo = 0
    for ns in namespaces:
        units, qs = ns["units"], ns["questions"]
        n, m = len(units), len(qs)
        q_terms = [text.analyze(q["question"]) for q in qs]
        ns["bm25_plain"] = bm25_matrix([text.analyze(text.turn_base_text(u)) for u in units],
                                       q_terms)
        ns["lexical"] = bm25_matrix(
            [text.analyze(text.lexical_text(u["speaker"], u["text"], u["timestamp"]))
             for u in units],
            q_terms)
        ns["cosine"] = qv[qo:qo + m] @ single[uo:uo + n].T
        ns["dense"] = qv[qo:qo + m] @ window[uo:uo + n].T
        qo, uo = qo + m, uo + n
        sessions = [u["session"] for u in units]
        ns["prev"] = [i - 1 if i > 0 and sessions[i - 1] == sessions[i] else None for i in range(n)]
        ns["next"] = [i + 1 if i + 1 < n and sessions[i + 1] == sessions[i] else None
                      for i in range(n)]
        ns["cue"] = [text.is_cue(u["text"]) for u in units]
        position = {u["key"]: i for i, u in enumerate(units)}
        ns["gold"] = [[position[g] for g in q["gold"]] for q in qs]


def top(scores: np.ndarray, k: int, positive: bool = False) -> list[int]:
    """Indices of the ``k`` best scores (ties by position), optionally only scores > 0."""
    order = np.argsort(-scores, kind="stable")[:k]
    return [int(i) for i in order if not positive or scores[i] > 0]


def candidates(ns: dict, qi: int, k_lex: int = engine.LEXICAL_K,
               k_dense: int = engine.DENSE_K) -> list[int]:
    """S of the engine: top lexical matches (BM25 > 0) ∪ top dense ∪ their NEXT_TURN
    neighbours."""
    seeds = set(top(ns["lexical"][qi], k_lex, positive=True)) | set(top(ns["dense"][qi], k_dense))
    out = set(seeds)
    for i in seeds:
        out.update(j for j in (ns["prev"][i], ns["next"][i]) if j is not None)
    return sorted(out)


def unit_id(i: int) -> str:
    """Unit ids that sort in conversation order, so :func:`fusion.fuse` breaks ties by position."""
    return f"{i:06d}"


def engine_ranking(ns: dict, qi: int, S: list[int], alpha: float, beta: float, k: int) -> list[int]:
    """The engine's top ``k`` over S with :func:`fusion.fuse` and the given (α, β)."""
    units = [fusion.UnitScore(
        id=unit_id(i), lexical=float(ns["lexical"][qi, i]), dense=float(ns["dense"][qi, i]),
        is_cue=ns["cue"][i],
        prev_id=unit_id(ns["prev"][i]) if ns["prev"][i] is not None else None,
        next_id=unit_id(ns["next"][i]) if ns["next"][i] is not None else None) for i in S]
    params = fusion.FusionParams(alpha=alpha, beta=beta, k1=fusion.K1, b=fusion.B)
    return [int(f.id) for f in fusion.fuse(units, params)[:k]]


def rrf_ranking(ns: dict, qi: int, k: int) -> list[int]:
    """RRF of the BM25 (``speaker: text``, matches only) and single-turn cosine rankings."""
    score: dict[int, float] = defaultdict(float)
    n = ns["cosine"].shape[1]
    for ranking in (top(ns["bm25_plain"][qi], n, positive=True), top(ns["cosine"][qi], n)):
        for rank, i in enumerate(ranking):
            score[i] += 1.0 / (RRF_K + rank + 1)
    return sorted(score, key=lambda i: (-score[i], i))[:k]


def recall(ranked: list[int], gold: list[int]) -> float:
    return len(set(ranked) & set(gold)) / len(gold)


def recalls(namespaces: list[dict], rank, k: int) -> list[np.ndarray]:
    """Per namespace, the recall@k of every question under ``rank(ns, qi, k)``."""
    return [np.array([recall(rank(ns, qi, k), g) for qi, g in enumerate(ns["gold"])])
            for ns in namespaces]


def by_category(namespaces: list[dict], per_ns: list[np.ndarray]) -> dict[str, float]:
    """Mean recall per LoCoMo category and overall (micro-average over questions)."""
    cats = np.array([q["category"] for ns in namespaces for q in ns["questions"]])
    values = np.concatenate(per_ns)
    out = {str(c): round(float(values[cats == c].mean()), 4) for c in sorted(set(cats.tolist()))}
    out["overall"] = round(float(values.mean()), 4)
    return out


def mean(per_ns: list[np.ndarray]) -> float:
    return round(float(np.concatenate(per_ns).mean()), 4)


# ----------------------------------------------------------------------------- study
def study_locomo(convs: list[dict]) -> dict:
    """LoCoMo tables: baselines, shipped engine, leave-one-conversation-out selection, ablation."""
    S = {(c["id"], qi): candidates(c, qi) for c in convs for qi in range(len(c["gold"]))}

    def fused(alpha: float, beta: float):
        return lambda ns, qi, k: engine_ranking(ns, qi, S[(ns["id"], qi)], alpha, beta, k)

    grid = {p: recalls(convs, fused(*p), K) for p in itertools.product(ALPHAS, BETAS)}
    loo, picks = [], []
    for held in range(len(convs)):
        others = [i for i in range(len(convs)) if i != held]

        def train(p, others=others):
            return round(float(np.concatenate([grid[p][i] for i in others]).mean()), 4)

        best = max(grid, key=lambda p: (train(p), -abs(p[0] - SHIPPED[0]), -abs(p[1] - SHIPPED[1])))
        picks.append({"held_out": convs[held]["id"], "alpha": best[0], "beta": best[1]})
        loo.append(grid[best][held])
    shipped = grid[SHIPPED] if SHIPPED in grid else recalls(convs, fused(*SHIPPED), K)
    bm25 = recalls(convs, lambda ns, qi, k: top(ns["bm25_plain"][qi], k, positive=True), K)
    cosine = recalls(convs, lambda ns, qi, k: top(ns["cosine"][qi], k), K)
    rrf = recalls(convs, rrf_ranking, K)
    alpha = SHIPPED[0]
    ablation = {
        "lexical_only": recalls(convs, fused(1.0, 0.0), K),
        "dense_only": recalls(convs, fused(0.0, 0.0), K),
        "fused": recalls(convs, fused(alpha, 0.0), K),
        "fused_plus_neighbours": shipped,
    }
    return {
        "conversations": [c["id"] for c in convs],
        "questions": sum(len(c["gold"]) for c in convs),
        "units": [len(c["units"]) for c in convs],
        "mean_candidates": round(float(np.mean([len(s) for s in S.values()])), 1),
        "recall@10": {
            "bm25": by_category(convs, bm25),
            "cosine": by_category(convs, cosine),
            "rrf_bm25_cosine": by_category(convs, rrf),
            "engine_shipped": by_category(convs, shipped),
            "engine_loo_selected": by_category(convs, loo),
        },
        "per_conversation": {
            c["id"]: {"bm25": round(float(bm25[i].mean()), 4),
                      "engine_shipped": round(float(shipped[i].mean()), 4),
                      "engine_loo_selected": round(float(loo[i].mean()), 4)}
            for i, c in enumerate(convs)},
        "loo_picks": picks,
        "ablation_shipped": {name: by_category(convs, r) for name, r in ablation.items()},
    }


def study_hotpot(examples: list[dict]) -> dict:
    """HotpotQA supporting-fact recall@5 / @10 (shipped parameters, no tuning)."""
    S = {(ex["id"], 0): candidates(ex, 0) for ex in examples}
    methods = {
        "bm25": lambda ns, qi, k: top(ns["lexical"][qi], k, positive=True),
        "cosine": lambda ns, qi, k: top(ns["cosine"][qi], k),
        "dense_window": lambda ns, qi, k: top(ns["dense"][qi], k),
        "engine_shipped": lambda ns, qi, k: engine_ranking(ns, qi, S[(ns["id"], qi)], *SHIPPED, k),
    }
    return {
        "examples": len(examples),
        "supporting_facts": sum(len(g) for ex in examples for g in ex["gold"]),
        "recall": {name: {"@5": mean(recalls(examples, f, 5)),
                          "@10": mean(recalls(examples, f, 10))}
                   for name, f in methods.items()},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None,
                        help="folder with locomo/ and hotpotqa/ (default: GRAPHMEM_DATA, else the "
                             "bundled samples)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help=f"vector cache folder (default {DEFAULT_CACHE})")
    parser.add_argument("--context-words", type=int, default=text.CONTEXT_WORDS,
                        help="words of each session neighbour in the window text (default "
                             f"{text.CONTEXT_WORDS}, the shipped text.CONTEXT_WORDS)")
    args = parser.parse_args(argv)
    began = time.monotonic()
    embed = CachedEmbedder(args.cache)
    locomo_path, hotpot_path = resolve("locomo", args.data), resolve("hotpotqa", args.data)
    convs = load_locomo(locomo_path)
    hotpot = load_hotpot(hotpot_path)
    prepare(convs, embed, "locomo", args.context_words)
    prepare(hotpot, embed, "hotpotqa", args.context_words)
    out = {
        "data": {"locomo": locomo_path.name, "hotpotqa": hotpot_path.name},
        "parameters": {"alpha": fusion.ALPHA, "beta": fusion.BETA, "k1": fusion.K1, "b": fusion.B,
                       "lexical_k": engine.LEXICAL_K, "dense_k": engine.DENSE_K,
                       "context_words": args.context_words,
                       "grid": {"alpha": ALPHAS, "beta": BETAS}},
        "locomo": study_locomo(convs),
        "hotpotqa": study_hotpot(hotpot),
        "texts_embedded": embed.embedded,
        "seconds": round(time.monotonic() - began, 1),
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

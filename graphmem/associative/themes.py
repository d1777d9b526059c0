"""The abstraction layer: themes grouping related episodes (MRAgent, seed 003, section 4.3).

Heuristic construction (pure): k-means over the episodes' unit embeddings (scikit-learn,
fixed seed so a repeated ingest gives the same themes), one theme per cluster, named by the
key phrases its members share (the keyword and entity cues extraction already found, weighted by
their rarity in the batch: no second key-phrase pass after encoding), embedded as the normalised
centroid.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

logger = logging.getLogger(__name__)


class ThemeGroup(BaseModel):
    """One theme: its member episode indices, name and ``(d,)`` unit centroid."""

    index: int
    members: list[int]
    name: str
    centroid: list[float]


def theme_name(members: Sequence[int], phrases: Sequence[Sequence[str]], df: dict[str, int],
               top: int = 3) -> str:
    """The name of a theme: its members' phrases ranked by how many members carry them times
    their inverse document frequency over the batch (``log((n + 1) / (df + 1)) + 1``, so a phrase
    every episode has -- a speaker -- ranks low), ties by first appearance; a phrase whose words
    the names already picked cover is skipped; ``""`` when the members have no phrase.

    Args:
        members: the theme's episode indices; ``phrases``: per episode of the batch its key
            phrases (keyword and entity cues, best first); ``df``: phrase -> episodes of the
            batch that carry it.
    """
    n = len(phrases)
    count: dict[str, int] = {}
    for i in members:
        for phrase in dict.fromkeys(phrases[i]):
            count[phrase] = count.get(phrase, 0) + 1
    order = {p: rank for rank, p in enumerate(count)}
    ranked = sorted(count, key=lambda p: (-count[p] * (np.log((n + 1) / (df.get(p, 0) + 1)) + 1),
                                          order[p]))
    picked: list[str] = []
    for phrase in ranked:
        covered = {w for k in picked for w in k.split()}
        if set(phrase.split()) <= covered:
            continue
        picked.append(phrase)
        if len(picked) >= top:
            break
    return ", ".join(picked)


def group_themes(
    vectors: np.ndarray,
    phrases: Sequence[Sequence[str]],
    episodes_per_theme: int = 20,
    seed: int = 0,
) -> list[ThemeGroup]:
    """Cluster episodes into themes.

    Args:
        vectors: ``(n, d) float32`` unit rows, one per episode.
        phrases: per episode its key phrases (the keyword and entity cues extraction gave it,
            best first): the theme names (:func:`theme_name`).
        episodes_per_theme: target cluster size; ``k = max(1, round(n / episodes_per_theme))``.
        seed: k-means seed (determinism).
    Returns:
        Non-empty themes, in cluster order.
    Raises:
        ValueError: ``phrases`` and ``vectors`` of different lengths.
    """
    n = len(phrases)
    if n != len(vectors):
        raise ValueError(f"group_themes: {len(vectors)} vectors for {n} phrase lists")
    if n == 0:
        return []
    from sklearn.cluster import KMeans

    k = max(1, min(n, round(n / episodes_per_theme)))
    labels = (
        np.zeros(n, dtype=int)
        if k == 1
        else KMeans(n_clusters=k, random_state=seed, n_init=4).fit_predict(vectors)
    )
    df: dict[str, int] = {}
    for own in phrases:
        for phrase in set(own):
            df[phrase] = df.get(phrase, 0) + 1
    groups: list[ThemeGroup] = []
    for cluster in range(k):
        members = [int(i) for i in np.flatnonzero(labels == cluster)]
        if not members:
            continue
        centroid = vectors[members].mean(axis=0)
        norm = float(np.linalg.norm(centroid)) or 1.0
        groups.append(
            ThemeGroup(
                index=cluster,
                members=members,
                name=theme_name(members, phrases, df) or f"theme {cluster}",
                centroid=(centroid / norm).astype(np.float32).tolist(),
            )
        )
    return groups

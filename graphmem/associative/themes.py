"""The abstraction layer: themes grouping related episodes (MRAgent, seed 003, section 4.3).

Heuristic construction (pure): k-means over the episodes' unit embeddings (scikit-learn,
fixed seed so a repeated ingest gives the same themes), one theme per cluster, named by the YAKE
key phrases of its members, embedded as the normalised centroid.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel

logger = logging.getLogger(__name__)


class ThemeGroup(BaseModel):
    """One theme: its member episode indices, name and ``(d,)`` unit centroid."""

    index: int
    members: list[int]
    name: str
    centroid: list[float]


def group_themes(
    vectors: np.ndarray,
    texts: Sequence[str],
    name_of: Callable[[str], list[str]],
    episodes_per_theme: int = 20,
    seed: int = 0,
) -> list[ThemeGroup]:
    """Cluster episodes into themes.

    Args:
        vectors: ``(n, d) float32`` unit rows, one per episode.
        texts: the ``n`` episode texts (for naming).
        name_of: key-phrase function (text -> phrases, best first).
        episodes_per_theme: target cluster size; ``k = max(1, round(n / episodes_per_theme))``.
        seed: k-means seed (determinism).
    Returns:
        Non-empty themes, in cluster order.
    """
    n = len(texts)
    if n == 0:
        return []
    from sklearn.cluster import KMeans

    k = max(1, min(n, round(n / episodes_per_theme)))
    labels = (
        np.zeros(n, dtype=int)
        if k == 1
        else KMeans(n_clusters=k, random_state=seed, n_init=4).fit_predict(vectors)
    )
    groups: list[ThemeGroup] = []
    for cluster in range(k):
        members = [int(i) for i in np.flatnonzero(labels == cluster)]
        if not members:
            continue
        centroid = vectors[members].mean(axis=0)
        norm = float(np.linalg.norm(centroid)) or 1.0
        phrases = name_of(" ".join(texts[i] for i in members))[:3]
        groups.append(
            ThemeGroup(
                index=cluster,
                members=members,
                name=", ".join(phrases) or f"theme {cluster}",
                centroid=(centroid / norm).astype(np.float32).tolist(),
            )
        )
    return groups

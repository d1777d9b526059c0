"""Database I/O of the associative memory, by query name (``cypher/associative/*.cypher``).

Graph (one documented vocabulary, see ``docs/associative.md``)::

    (:Cue {text, kind})-[:HAS_TAG]->(:Tag {cue_id, text})-[:LEADS_TO]->(:Episode | :SemanticUnit)
    (:Episode)-[:NEXT_EPISODE]->(:Episode)            timeline of a conversation
    (:SemanticUnit)-[:DERIVED_FROM]->(:Episode)       stable fact -> its source turns
    (:Theme)-[:GROUPS]->(:Episode)                    abstraction layer

``phi(c->g)`` is ``(:Cue {id})-[:HAS_TAG]->(:Tag)`` (a unique-id seek, then the cue's edges);
``phi((c,g)->v)`` is ``(:Tag {namespace, cue_id, text})-[:LEADS_TO]->(v)`` (one composite-index
seek, ``V0040``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from graphmem.graph.runner import QueryRunner

logger = logging.getLogger(__name__)

Row = dict[str, Any]


def _cosine(score: float) -> float:
    """Neo4j's vector scores are ``(1 + cos) / 2`` in [0, 1]; return the cosine in [-1, 1]."""
    return 2.0 * float(score) - 1.0


def _as_cosine(rows: list[Row]) -> list[Row]:
    for row in rows:
        if row.get("score") is not None:
            row["score"] = _cosine(row["score"])
    return rows


class AssociativeStore:
    """Reads and writes of one namespace. Scores returned are cosines in [-1, 1]."""

    def __init__(self, runner: QueryRunner, namespace: str):
        self.runner = runner
        self.namespace = namespace

    # -- writes ------------------------------------------------------------------------------
    def write_graph(
        self,
        episodes: list[Row],
        timeline: list[Row],
        cues: list[Row],
        tags: list[Row],
        episode_links: list[Row],
        semantic_units: list[Row],
        semantic_links: list[Row],
        themes: list[Row],
    ) -> dict[str, int]:
        """Write one conversation's graph in ONE transaction (all lands or nothing).

        Returns:
            nodes created by label (``Episode``, ``Cue``, ``Tag``, ``SemanticUnit``, ``Theme``),
            from the write queries' answers (nodes that already existed are not counted).
        """
        ns = self.namespace
        steps = [
            ("associative/merge_episodes", {"namespace": ns, "rows": episodes}),
            ("associative/link_episode_timeline", {"namespace": ns, "pairs": timeline}),
            ("associative/merge_cues", {"namespace": ns, "rows": cues}),
            ("associative/merge_tags", {"namespace": ns, "rows": tags}),
            ("associative/link_tag_episodes", {"namespace": ns, "rows": episode_links}),
            ("associative/merge_semantic_units", {"namespace": ns, "rows": semantic_units}),
            ("associative/link_tag_semantic_units", {"namespace": ns, "rows": semantic_links}),
            ("associative/merge_themes", {"namespace": ns, "rows": themes}),
        ]
        results = self.runner.write_many(steps)
        labels = {0: "Episode", 2: "Cue", 3: "Tag", 5: "SemanticUnit", 7: "Theme"}
        created = {label: sum(int(r["created"]) for r in results[i]) for i, label in labels.items()}
        logger.debug("associative write: %d episodes sent, created %s", len(episodes), created)
        return created

    def existing_episode_ids(self, ids: list[str]) -> set[str]:
        """The subset of Episode ``ids`` already stored in the namespace."""
        rows = self.runner.read("associative/find_existing_episodes", namespace=self.namespace,
                                ids=list(ids))
        return {r["id"] for r in rows}

    # -- reads -------------------------------------------------------------------------------
    def counts(self) -> Row:
        """Node and relationship counts of the associative graph."""
        return self.runner.read("associative/count_structure", namespace=self.namespace)[0]

    def search_episodes(self, embedding: np.ndarray, k: int) -> list[Row]:
        """Top ``k`` episodes by cosine to ``embedding`` ``(d,)``: the vector index oversampled
        (``max(10k, 200)``) and filtered by namespace, with an exact in-namespace scan when fewer
        than ``k`` come back."""
        vec = [float(x) for x in embedding]
        rows = self.runner.read("associative/search_episodes", namespace=self.namespace,
                                embedding=vec, oversample=max(10 * k, 200), k=k)
        if len(rows) < k:
            rows = self.runner.read("associative/search_episodes_exact", namespace=self.namespace,
                                    embedding=vec, k=k)
        for row in rows:
            row["kind"] = "episode"
        return _as_cosine(rows)

    def find_cues_by_text(self, texts: Sequence[str]) -> list[Row]:
        """Cue nodes whose normalised text is in ``texts``."""
        if not texts:
            return []
        return self.runner.read("associative/find_cues_by_text", namespace=self.namespace,
                                texts=list(texts))

    def search_cues(self, embeddings: np.ndarray, k: int) -> list[Row]:
        """Top ``k`` Cue nodes per row of ``embeddings`` ``(m, d)``; ``query`` is the row index.
        Falls back to an exact scan for rows with fewer than ``k`` hits."""
        if len(embeddings) == 0 or k == 0:
            return []
        vecs = [[float(x) for x in row] for row in embeddings]
        rows = self.runner.read("associative/search_cues", namespace=self.namespace,
                                embeddings=vecs, oversample=max(20 * k, 200), k=k)
        per_query = {i: 0 for i in range(len(vecs))}
        for row in rows:
            per_query[row["query"]] += 1
        starved = [i for i, n in per_query.items() if n < k]
        if starved:
            exact = self.runner.read("associative/search_cues_exact", namespace=self.namespace,
                                     embeddings=[vecs[i] for i in starved], k=k)
            rows = [r for r in rows if r["query"] not in starved]
            for row in exact:
                row["query"] = starved[row["query"]]
                rows.append(row)
        return _as_cosine(rows)

    def search_themes(self, embedding: np.ndarray, k: int) -> list[Row]:
        """Top ``k`` themes by cosine to ``embedding``."""
        return _as_cosine(self.runner.read("associative/search_themes", namespace=self.namespace,
                                           embedding=[float(x) for x in embedding], k=k))

    def expand_cue_tags(self, cue_ids: Sequence[str], embedding: list[float], per_cue: int) -> list[Row]:
        """Action cue->tag, ``phi(c->g)``: best ``per_cue`` tags per cue by cosine to the question."""
        if not cue_ids:
            return []
        return _as_cosine(self.runner.read("associative/expand_cue_tags", namespace=self.namespace,
                                           cue_ids=list(cue_ids), embedding=embedding,
                                           per_cue=per_cue))

    def expand_tag_contents(self, pairs: Sequence[Row], embedding: list[float]) -> list[Row]:
        """Action cue+tag->content, ``phi((c,g)->v)`` for ``{cue_id, tag_text}`` pairs."""
        if not pairs:
            return []
        return _as_cosine(self.runner.read("associative/expand_tag_contents",
                                           namespace=self.namespace, pairs=list(pairs),
                                           embedding=embedding))

    def expand_cue_episodes(self, cue_ids: Sequence[str], embedding: list[float], per_cue: int) -> list[Row]:
        """Ablation CE: cue->episode without tag routing."""
        if not cue_ids:
            return []
        rows = self.runner.read("associative/expand_cue_episodes", namespace=self.namespace,
                                cue_ids=list(cue_ids), embedding=embedding, per_cue=per_cue)
        for row in rows:
            row["kind"] = "episode"
        return _as_cosine(rows)

    def expand_content_cues(self, content_ids: Sequence[str], embedding: list[float]) -> list[Row]:
        """Backward action content->cue/tag."""
        if not content_ids:
            return []
        return _as_cosine(self.runner.read("associative/expand_content_cues",
                                           namespace=self.namespace,
                                           content_ids=list(content_ids), embedding=embedding))

    def find_content_themes(self, content_ids: Sequence[str]) -> list[Row]:
        """Themes grouping the given episodes."""
        if not content_ids:
            return []
        return self.runner.read("associative/find_content_themes", namespace=self.namespace,
                                content_ids=list(content_ids))

    def expand_theme_episodes(self, theme_ids: Sequence[str], embedding: list[float],
                              per_theme: int) -> list[Row]:
        """Action theme->episodes: best ``per_theme`` members per theme."""
        if not theme_ids:
            return []
        rows = self.runner.read("associative/expand_theme_episodes", namespace=self.namespace,
                                theme_ids=list(theme_ids), embedding=embedding,
                                per_theme=per_theme)
        for row in rows:
            row["kind"] = "episode"
        return _as_cosine(rows)

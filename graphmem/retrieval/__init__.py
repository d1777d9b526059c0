"""Hybrid retrieval engine shared by the state (Event) and associative (Episode) memories.

- :mod:`graphmem.retrieval.text`: pure text features of a unit (lexical text, analyzer, flags,
  window texts);
- :mod:`graphmem.retrieval.passages`: the passages of a long message (pure), whose vectors a unit
  stores beside its window vector;
- :mod:`graphmem.retrieval.fusion`: the pure fusion rule (per-namespace BM25, min-max convex
  fusion, cue-gated neighbour step);
- :mod:`graphmem.retrieval.engine`: :class:`HybridSearch`, one Cypher query per round.

See ``docs/retrieval.md``.
"""

from graphmem.retrieval.engine import (Candidate, HybridSearch, stored_time, unit_rows,
                                       window_texts)

__all__ = ["Candidate", "HybridSearch", "stored_time", "unit_rows", "window_texts"]

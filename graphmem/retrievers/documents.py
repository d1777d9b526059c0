"""The shape of the LangChain ``Document``s every memory's ``documents(result)`` returns (pure;
no I/O). Each memory converts its own :class:`~graphmem.memory.RecallResult` (the retrievers hold
no per-memory code) with the helpers of :mod:`graphmem.documents` (re-exported here), which keep
the metadata identical across memories.

Every document has ``page_content`` (the text an LLM should read), ``id`` (the node id) and the
same metadata keys whatever the memory:

- ``memory``: the registered memory's name (``"insight"``, ``"state"``, ...)
- ``namespace``: the tenant the node belongs to
- ``node_ids``: the node itself first, then the nodes that explain it (evidence queries, neighbour
  tasks, topic, path nodes)
- ``score``: the memory's own ranking score (insight r = s − λc; experience cosine in [-1, 1];
  state fused hit score; associative fused rank score)
- ``rank``: 1-based position in the memory's ranking
- ``kind``: what the node is (``insight``, ``task``, ``event``, ``state``, ``episode``,
  ``semantic_unit``)
- ``provenance``: where it came from — ``supporting_query_ids`` (insight), ``task_ids``
  (experience), ``dia_ids`` (state, associative: LoCoMo turn ids), ``path`` (associative hops)
- ``fusion_key``: what the combined retriever fuses on — the node id, except for an item that
  rests on one conversation turn (state Event or State, associative Episode or semantic unit),
  where it is the turn's conversation and source message id
  (:func:`graphmem.documents.conversation_fusion_key`), so the same turn found by both memories
  counts as one document
- ``validity`` (state judgements only): the topic, state, ``current`` flag and validity interval
  of the state the item is or is evidence of
- ``passage`` (a state event or associative episode of a long message whose passage vector
  matched): ``{"start", "end", "text"}`` of that passage (:mod:`graphmem.retrieval.passages`)

Values are JSON types only (datetimes as ISO 8601 strings).
"""

from __future__ import annotations

from graphmem.documents import conversation_fusion_key, item_document, turn_key

__all__ = ["conversation_fusion_key", "item_document", "turn_key"]

"""Associative memory schema (MRAgent, seed 003): the Cue–Tag–Content graph.

Relationship types::

    (:Cue)-[:HAS_TAG]->(:Tag)                     phi(c -> g): the tags of a cue
    (:Tag)-[:LEADS_TO]->(:Episode|:SemanticUnit)  phi((c, g) -> v): a Tag is unique per (cue, text),
                                                  so one (cue, tag) pair is one Tag node
    (:Episode)-[:NEXT_EPISODE]->(:Episode)        the conversation's timeline
    (:SemanticUnit)-[:DERIVED_FROM]->(:Episode)   a stable fact and the turns it came from
    (:Theme)-[:GROUPS]->(:Episode)                abstraction layer
    (:Episode)-[:NEXT_TURN]->(:Episode)           the next turn of the same session (retrieval)
    (:Timeline {conversation_id})                 a conversation's write lock (no edges)

Cues and tags are matched by text and carry no vector (a cue's ``contents`` counts the episodes
it leads to; a tag's ``terms`` are its analyzed words). An Episode is a retrieval unit of
:mod:`graphmem.retrieval` (lexical properties, ``prev_id``/``next_id``, the window ``embedding``).

Extra indexes: ``Cue(namespace, text)``, ``Tag(namespace, cue_id, text)``,
``Episode(namespace, source_id)`` (V0040); the engine's full-text index and
``Episode(namespace, lexical_length)`` (V0050), ``Episode(namespace, speaker)`` (V0060).
"""

from __future__ import annotations

from neomodel import (ArrayProperty, BooleanProperty, DateTimeProperty, FloatProperty,
                      IntegerProperty, RelationshipTo, StringProperty)

from graphmem.schema.base import GraphmemNode, embedding_property


class Cue(GraphmemNode):
    """A cue c (entity, attribute, time, action, keyword), shared per namespace by normalised
    text (id = uuid5(namespace, "cue", text))."""

    text = StringProperty(required=True)
    kind = StringProperty(choices={k: k for k in ("entity", "attribute", "time", "action", "keyword")})
    contents = IntegerProperty()
    has_tag = RelationshipTo("Tag", "HAS_TAG")


class Tag(GraphmemNode):
    """A tag g: how its cue leads to contents; unique per (cue_id, text); routed by its analyzed
    ``terms``."""

    text = StringProperty(required=True)
    cue_id = StringProperty(required=True)
    terms = StringProperty()
    leads_to_episode = RelationshipTo("Episode", "LEADS_TO")
    leads_to_semantic_unit = RelationshipTo("SemanticUnit", "LEADS_TO")


class Episode(GraphmemNode):
    """An episodic unit (one conversation turn, ``"<speaker>: <text>"``) on the timeline."""

    text = StringProperty(required=True)
    speaker = StringProperty()
    source_id = StringProperty()  # LoCoMo dia_id
    conversation_id = StringProperty()
    session = StringProperty()
    position = IntegerProperty()
    occurred_at = DateTimeProperty()
    vector_stamp = IntegerProperty()  # new random integer per vector write (retrieval vector cache)
    # a long message's passages (graphmem.retrieval.passages): flat [start, end) spans in text and
    # their vectors concatenated (passages x d floats); absent for a short message
    passage_spans = ArrayProperty(IntegerProperty())
    passage_embeddings = ArrayProperty(FloatProperty())
    lexical_text = StringProperty()
    lexical_terms = StringProperty()
    lexical_length = IntegerProperty()
    ns_token = StringProperty()
    is_cue = BooleanProperty()
    is_smalltalk = BooleanProperty()
    prev_id = StringProperty()
    next_id = StringProperty()
    embedding = embedding_property()
    # set by retention (graphmem.agent.retention), with ns_token then the namespace's archived
    # token: recall leaves the episode out unless asked; it keeps every edge
    archived_at = DateTimeProperty()
    next_episode = RelationshipTo("Episode", "NEXT_EPISODE")
    next_turn = RelationshipTo("Episode", "NEXT_TURN")


class SemanticUnit(GraphmemNode):
    """A stable fact or preference (``kind``: fact | preference), merged on normalised text."""

    text = StringProperty(required=True)
    kind = StringProperty()
    conversation_id = StringProperty()
    embedding = embedding_property(indexed=False)
    derived_from = RelationshipTo("Episode", "DERIVED_FROM")


class Timeline(GraphmemNode):
    """A conversation's timeline: the write lock every batch of the conversation takes first, so
    concurrent appends serialise (``batches`` counts the batches written)."""

    conversation_id = StringProperty(required=True)
    batches = IntegerProperty()
    unit_version = IntegerProperty()  # raised by every batch: the vector cache's token (V0110)


class Theme(GraphmemNode):
    """A theme grouping related episodes (k-means cluster named by its key phrases)."""

    name = StringProperty(required=True)
    conversation_id = StringProperty()
    embedding = embedding_property(indexed=False)
    groups = RelationshipTo("Episode", "GROUPS")

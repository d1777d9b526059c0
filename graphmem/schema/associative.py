"""Associative memory schema (MRAgent, seed 003): the Cue–Tag–Content graph."""

from __future__ import annotations

from neomodel import StringProperty

from graphmem.schema.base import GraphmemNode, embedding_property


class Cue(GraphmemNode):
    """A cue c (entity, time, action, keyword), shared per namespace by normalised text."""

    text = StringProperty(required=True)
    kind = StringProperty()
    embedding = embedding_property()


class Tag(GraphmemNode):
    """A tag g: how a cue leads to contents."""

    text = StringProperty(required=True)
    embedding = embedding_property()


class Episode(GraphmemNode):
    """An episodic content unit on the timeline."""

    text = StringProperty(required=True)
    embedding = embedding_property()


class SemanticUnit(GraphmemNode):
    """A stable fact or preference."""

    text = StringProperty(required=True)
    embedding = embedding_property()


class Theme(GraphmemNode):
    """A theme grouping related episodes."""

    name = StringProperty(required=True)
    embedding = embedding_property()

"""State memory schema (EMIR² SEMG, seed 002): topic chains, events, semantic states."""

from __future__ import annotations

from neomodel import DateTimeProperty, RelationshipTo, StringProperty

from graphmem.schema.base import GraphmemNode, embedding_property


class Topic(GraphmemNode):
    """A topic chain head."""

    name = StringProperty(required=True)
    embedding = embedding_property()
    first_timeline_node = RelationshipTo("Event", "FIRST_TIMELINE_NODE")
    initial_state = RelationshipTo("State", "INITIAL_STATE")
    current_state = RelationshipTo("State", "CURRENT_STATE")


class Event(GraphmemNode):
    """An episodic unit on a topic's timeline."""

    text = StringProperty(required=True)
    occurred_at = DateTimeProperty()
    embedding = embedding_property()
    temporal_next = RelationshipTo("Event", "TEMPORAL_NEXT")
    supported_by = RelationshipTo("Topic", "SUPPORTED_BY")


class State(GraphmemNode):
    """A semantic state of a topic, valid from ``valid_from`` to ``valid_to``."""

    content = StringProperty(required=True)
    valid_from = DateTimeProperty()
    valid_to = DateTimeProperty()
    embedding = embedding_property()
    semantic_next = RelationshipTo("State", "SEMANTIC_NEXT")
    supported_by = RelationshipTo("Topic", "SUPPORTED_BY")

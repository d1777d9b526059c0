"""Insight memory schema (EvoGraph-Mem, seed 000): query graph and insight graph."""

from __future__ import annotations

from neomodel import BooleanProperty, IntegerProperty, RelationshipTo, StringProperty

from graphmem.schema.base import GraphmemNode, embedding_property


class Query(GraphmemNode):
    """A past task query q (eq. 1) with its outcome."""

    text = StringProperty(required=True)
    status = StringProperty(choices={"failed": "failed", "resolved": "resolved"})
    embedding = embedding_property()
    related = RelationshipTo("Query", "RELATED_QUERY")
    first_step = RelationshipTo("Step", "FIRST_STEP")


class Step(GraphmemNode):
    """One interaction step of a query's trajectory."""

    content = StringProperty(required=True)
    position = IntegerProperty()
    next_step = RelationshipTo("Step", "NEXT_STEP")


class Insight(GraphmemNode):
    """An insight ι with activation z (eqs. 5–6); Ω+ = SUPPORTS, Ω− = CONFLICTS_WITH."""

    content = StringProperty(required=True)
    active = BooleanProperty(default=True)
    version = IntegerProperty(default=1)
    embedding = embedding_property()
    supports = RelationshipTo("Query", "SUPPORTS")
    conflicts_with = RelationshipTo("Query", "CONFLICTS_WITH")
    contextualizes = RelationshipTo("Insight", "CONTEXTUALIZES")
    revision_of = RelationshipTo("Insight", "REVISION_OF")


class ControllerDecision(GraphmemNode):
    """Audit record of one graph-controller decision (eqs. 11–12)."""

    operation = StringProperty(required=True)
    controller = StringProperty(required=True)
    reason = StringProperty()

"""Experience memory schema (EMG, seed 001): tasks and their action decision graphs."""

from __future__ import annotations

from neomodel import FloatProperty, IntegerProperty, RelationshipTo, StringProperty

from graphmem.schema.base import GraphmemNode, embedding_property


class Task(GraphmemNode):
    """A task node (eq. 1): query, embedding, reward, intra-task insight."""

    query = StringProperty(required=True)
    reward = FloatProperty()
    intra_insight = StringProperty()
    embedding = embedding_property()
    similar = RelationshipTo("Task", "SIMILAR_TASK")


class DecisionGraph(GraphmemNode):
    """One action decision graph of a task (exploration, expert or common subgraph)."""

    kind = StringProperty(required=True)


class Action(GraphmemNode):
    """A node of an action decision graph (type, object, receptacle)."""

    key = StringProperty(required=True)
    raw = StringProperty()
    label = IntegerProperty()
    decided = RelationshipTo("Action", "DECIDED")


class EditOperation(GraphmemNode):
    """One operation of a graph edit path (Algorithm 3)."""

    operation = StringProperty(required=True)
    position = IntegerProperty()

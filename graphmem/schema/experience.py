"""Experience memory schema (EMG, seed 001): tasks, their action decision graphs, edit operations.

    (:Task)-[:HAS_GRAPH]->(:DecisionGraph {kind: exploration|expert|common})-[:HAS_ACTION]->(:Action)
    (:Action)-[:DECIDED {observation, label, step}]->(:Action)        Algorithm 1 edges
    (:Task)-[:HAS_EDIT]->(:EditOperation)-[:EDITS]->(:Action)          Algorithm 3, exploration side
    (:EditOperation)-[:TARGETS]->(:Action)                             expert side
    (:Task)-[:SIMILAR_TASK {similarity, cross_insight, ...}]->(:Task)  eq. 2, top-k >= tau
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    FloatProperty,
    IntegerProperty,
    RelationshipTo,
    StringProperty,
    StructuredRel,
)

from graphmem.schema.base import GraphmemNode, embedding_property


class Decided(StructuredRel):
    """``DECIDED``: the (normalised) observation under which the target action was taken."""

    observation = StringProperty(required=True)
    observation_raw = StringProperty()
    label = IntegerProperty(required=True)
    step = IntegerProperty()


class SimilarTask(StructuredRel):
    """``SIMILAR_TASK`` (eq. 2): cosine ``s_ij`` of the queries and the cross-task insight, with
    the shared decisions of the two expert graphs as parallel lists."""

    similarity = FloatProperty(required=True)
    cross_insight = StringProperty()
    cross_renderer = StringProperty()  # heuristic | llm
    cross_observations = ArrayProperty(StringProperty())
    cross_actions = ArrayProperty(StringProperty())
    cross_raw = ArrayProperty(StringProperty())


class Task(GraphmemNode):
    """A task node (eq. 1): query, embedding, exploration reward, intra-task insight."""

    task_key = StringProperty(required=True)
    query = StringProperty(required=True)
    reward = FloatProperty()
    task_type = StringProperty()
    source = StringProperty()
    has_exploration = BooleanProperty()
    intra_insight = StringProperty()
    intra_renderer = StringProperty()  # heuristic | llm
    edit_path_length = IntegerProperty()
    fgw_distance = FloatProperty()
    embedding = embedding_property()
    similar = RelationshipTo("Task", "SIMILAR_TASK", model=SimilarTask)
    graphs = RelationshipTo("DecisionGraph", "HAS_GRAPH")
    edits = RelationshipTo("EditOperation", "HAS_EDIT")


class DecisionGraph(GraphmemNode):
    """One action decision graph of a task: exploration, expert, or the common subgraph."""

    kind = StringProperty(required=True, choices={"exploration": "exploration", "expert": "expert",
                                                   "common": "common"})
    task_key = StringProperty()
    reward = FloatProperty()
    node_count = IntegerProperty()
    edge_count = IntegerProperty()
    actions = RelationshipTo("Action", "HAS_ACTION")


class Action(GraphmemNode):
    """A node of an action decision graph: ``key`` = "type object -> receptacle", raw text,
    integer label (INIT = 0); ``node`` is its index in the graph."""

    key = StringProperty(required=True)
    raw = StringProperty()
    label = IntegerProperty()
    type = StringProperty()
    object = StringProperty()
    receptacle = StringProperty()
    node = IntegerProperty()
    same_label = BooleanProperty()
    decided = RelationshipTo("Action", "DECIDED", model=Decided)


class EditOperation(GraphmemNode):
    """One operation of a graph edit path (Algorithm 3)."""

    operation = StringProperty(required=True)
    position = IntegerProperty()
    observation = StringProperty()
    action_key = StringProperty()
    action_raw = StringProperty()
    target_observation = StringProperty()
    target_key = StringProperty()
    target_raw = StringProperty()
    edits = RelationshipTo("Action", "EDITS")
    targets = RelationshipTo("Action", "TARGETS")

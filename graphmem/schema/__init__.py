"""The schema in one place: neomodel classes declare every label, its typed properties and
relationship types. Migrations create what these declare; an integration test checks that the
migrated database matches them.

Vocabulary (labels are singular PascalCase, relationship types UPPER_SNAKE):

- insight (EvoGraph-Mem): Query, Step, Insight, ControllerDecision
- experience (EMG): Task, DecisionGraph, Action, EditOperation
- state (EMIR² SEMG): Topic, Event, State, ConversationLock, Person
- associative (MRAgent): Cue, Tag, Episode, SemanticUnit, Theme, Timeline
- namespaced bookkeeping: AuditRecord (lifecycle audit trail: graphmem.schema.audit),
  RetentionPolicy (a namespace's retention rules: graphmem.schema.retention)
- bookkeeping: __GraphmemMigration, __GraphmemLock (no namespace; admin only)
"""

from __future__ import annotations

from graphmem.schema.audit import AuditRecord
from graphmem.schema.associative import Cue, Episode, SemanticUnit, Tag, Theme, Timeline
from graphmem.schema.base import GraphmemNode
from graphmem.schema.experience import Action, DecisionGraph, EditOperation, Task
from graphmem.schema.insight import ControllerDecision, Insight, Query, Step
from graphmem.schema.retention import RetentionPolicy
from graphmem.schema.state import ConversationLock, Event, Person, State, Topic

#: Every namespaced label, by memory.
MEMORY_LABELS: dict[str, tuple[type[GraphmemNode], ...]] = {
    "insight": (Query, Step, Insight, ControllerDecision),
    "experience": (Task, DecisionGraph, Action, EditOperation),
    "state": (Topic, Event, State, ConversationLock, Person),
    "associative": (Cue, Tag, Episode, SemanticUnit, Theme, Timeline),
}

#: Namespaced labels that belong to no memory (deleted with the namespace, not counted as memory).
BOOKKEEPING_LABELS: tuple[type[GraphmemNode], ...] = (AuditRecord, RetentionPolicy)

ALL_NODE_CLASSES: tuple[type[GraphmemNode], ...] = tuple(
    cls for classes in MEMORY_LABELS.values() for cls in classes
) + BOOKKEEPING_LABELS


def label_of(cls: type[GraphmemNode]) -> str:
    """The Neo4j label neomodel uses for ``cls``."""
    return getattr(cls, "__label__", cls.__name__)


def embedded_labels() -> list[str]:
    """Labels whose class declares a vector-indexed property."""
    return [
        label_of(cls)
        for cls in ALL_NODE_CLASSES
        if any(getattr(p, "vector_index", None) for p in cls.defined_properties(rels=False).values())
    ]


def unique_properties() -> list[tuple[str, str]]:
    """``(label, property)`` pairs declared ``unique_index``."""
    return [
        (label_of(cls), name)
        for cls in ALL_NODE_CLASSES
        for name, prop in cls.defined_properties(rels=False).items()
        if getattr(prop, "unique_index", False)
    ]

"""The memory registry: one :class:`MemorySpec` line per memory (name, class, labels, embedded
labels, summary, plugin queries), in registration order -- the one place a memory is declared. The facade, the
CLI, the MCP server, the retrievers, ``mem.add``, ``forget``, ``graphmem doctor`` and the Cypher
label unions loop over it. The four
built-in memories register here; an installed package registers through the
``graphmem.memories`` entry-point group (:func:`load_entry_points`)."""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInputError
from graphmem.graph.registry import set_label_source

if TYPE_CHECKING:
    from graphmem.memory import Memory

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MemorySpec:
    """One registry line: a memory's name, where its class lives and the labels it owns.

    Attributes:
        name: facade attribute, CLI group, retriever ``memory`` value (``"state"``).
        class_path: ``"package.module:ClassName"`` of the :class:`Memory` subclass (imported
            on first use, so ``import graphmem`` stays light).
        labels: node labels the memory owns (PascalCase, ``^[A-Z][A-Za-z0-9]*$``, owned by
            no other registered memory: graphmem's own, or a plugin's); namespace deletion and
            counts loop over them.
        summary: one line for listings (CLI, README).
        cypher: for a memory outside graphmem: the folder of its own ``*.cypher`` queries
            (names relative to it, e.g. ``note/write_notes``), added to a runner's registry when
            the memory is built on it (:meth:`CypherRegistry.include
            <graphmem.graph.registry.CypherRegistry.include>`). None: its queries ship in
            graphmem's ``cypher/``.
        embedded_labels: the labels among ``labels`` whose nodes carry an ``embedding`` (a list
            of floats, the embedder's width): ``graphmem doctor`` checks (and repairs) them and
            lists the namespaces holding them (``{{EMBEDDED_LABELS}}`` in the Cypher registry).
            A node is re-embedded from its ``text`` property unless the memory's own queries
            hold ``doctor/scan_<label in snake case>`` (see :mod:`graphmem.doctor`); a repair
            finds it by ``id`` through the label's uniqueness constraint on ``id``.
    """

    name: str
    class_path: str
    labels: tuple[str, ...]
    summary: str = ""
    cypher: str | None = None
    embedded_labels: tuple[str, ...] = ()

    def load(self) -> type[Memory]:
        """Import and return the memory class."""
        module, _, attr = self.class_path.partition(":")
        return getattr(importlib.import_module(module), attr)


#: name -> spec, in registration order (the order listings and fusion use).
MEMORY_REGISTRY: dict[str, MemorySpec] = {}


_LABEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")


def _check_labels(spec: MemorySpec) -> None:
    """Raises InvalidInputError: a label that is no PascalCase name, or an embedded label the
    memory does not own (each message names the memory and the label)."""
    for field in ("labels", "embedded_labels"):
        value: Any = getattr(spec, field)
        if not isinstance(value, tuple | list) or not all(isinstance(x, str) for x in value):
            raise InvalidInputError(f"MemorySpec {field} of memory {spec.name!r} must be a tuple "
                                    f"of label names, got {value!r}")
    for label in spec.labels:
        if not _LABEL.match(label):
            raise InvalidInputError(f"label {label!r} of memory {spec.name!r} must match "
                                    "^[A-Z][A-Za-z0-9]*$ (PascalCase, letters and digits)")
    for label in spec.embedded_labels:
        if label not in spec.labels:
            raise InvalidInputError(f"embedded label {label!r} of memory {spec.name!r} is not "
                                    f"one of its labels {list(spec.labels)}: add it to labels "
                                    "or drop it from embedded_labels")


def register_memory(spec: MemorySpec) -> MemorySpec:
    """Add ``spec`` to :data:`MEMORY_REGISTRY` (the one place a memory is declared).

    Raises:
        InvalidInputError: the name is taken by another class, a label is owned by another
            memory (labels must not collide across memories), a label does not match
            ``^[A-Z][A-Za-z0-9]*$``, or an embedded label is not among the spec's ``labels``.
    """
    _check_labels(spec)
    old = MEMORY_REGISTRY.get(spec.name)
    if old is not None and old != spec:
        raise InvalidInputError(f"memory name {spec.name!r} is already registered "
                                f"({old.class_path})")
    for other in MEMORY_REGISTRY.values():
        clash = set(other.labels) & set(spec.labels)
        if other.name != spec.name and clash:
            raise InvalidInputError(f"labels {sorted(clash)} of memory {spec.name!r} are owned "
                                    f"by memory {other.name!r}")
    MEMORY_REGISTRY[spec.name] = spec
    logger.debug("registered memory %s (%s)", spec.name, spec.class_path)
    return spec


def memory_spec(name: str) -> MemorySpec:
    """The registry line of memory ``name``.

    Raises:
        InvalidInputError: an unknown name (the message lists the known ones).
    """
    try:
        return MEMORY_REGISTRY[name]
    except KeyError:
        raise InvalidInputError(f"unknown memory {name!r}: use one of "
                                f"{', '.join(MEMORY_REGISTRY)}") from None


def memory_names() -> tuple[str, ...]:
    """Names of the registered memories, in registration order."""
    return tuple(MEMORY_REGISTRY)


def all_labels(names: Iterable[str] | None = None) -> tuple[str, ...]:
    """Labels owned by the given memories (default all), in registry order."""
    chosen = MEMORY_REGISTRY if names is None else {n: memory_spec(n) for n in names}
    return tuple(label for spec in chosen.values() for label in spec.labels)


def embedded_labels(names: Iterable[str] | None = None) -> tuple[str, ...]:
    """Labels whose nodes carry an ``embedding``, of the given memories (default all), in
    registry order (:attr:`MemorySpec.embedded_labels`)."""
    chosen = MEMORY_REGISTRY if names is None else {n: memory_spec(n) for n in names}
    return tuple(label for spec in chosen.values() for label in spec.embedded_labels)


def include_memory_queries(registry: Any) -> int:
    """Add the own queries of every registered memory that ships them (:attr:`MemorySpec.cypher`)
    to ``registry`` (a :class:`~graphmem.graph.registry.CypherRegistry`; each folder once), so
    tools above the memories (``graphmem doctor``) find them without building the memories.
    Returns the number of queries added.

    Raises:
        QueryRegistryError: a bad file, or a name already defined by another file.
    """
    include = getattr(registry, "include", None)
    if include is None:
        return 0
    return sum(include(spec.cypher) for spec in MEMORY_REGISTRY.values() if spec.cypher)


def message_memories() -> tuple[str, ...]:
    """The registered memories that store conversation messages (their class declares
    :attr:`Memory.message_queries`, so ``forget`` can remove what they hold), in registry order:
    where ``mem.add`` writes by default. Imports each memory's class."""
    return tuple(name for name, spec in MEMORY_REGISTRY.items() if spec.load().message_queries)


#: The entry-point group through which an installed package registers a memory: each entry
#: point names a :class:`MemorySpec` (or a callable returning one), e.g. in pyproject.toml
#: ``[project.entry-points."graphmem.memories"] note = "toy_note:SPEC"``.
ENTRY_POINT_GROUP = "graphmem.memories"


_loaded_groups: set[str] = set()


def load_entry_points(group: str = ENTRY_POINT_GROUP) -> list[str]:
    """Register the memories installed packages declare under ``group``, once per process
    (``GraphMemory`` calls it when built, so a plugin may import anything of graphmem); returns
    the names added. A broken entry point (it fails to load, is not a MemorySpec, or clashes
    with a registered memory) is logged as an error naming it and skipped: one bad plugin never
    stops graphmem."""
    from importlib.metadata import entry_points

    if group in _loaded_groups:
        return []
    _loaded_groups.add(group)
    added = []
    for point in entry_points(group=group):
        try:
            spec = point.load()
            if callable(spec) and not isinstance(spec, MemorySpec):
                spec = spec()
            if not isinstance(spec, MemorySpec):
                raise InvalidInputError(f"it names a {type(spec).__name__}, not a MemorySpec")
            register_memory(spec)
            added.append(spec.name)
        except Exception as exc:  # noqa: BLE001 - a plugin's failure is reported, not raised
            logger.error("memory entry point %r (%s) skipped: %s: %s", point.name, point.value,
                         type(exc).__name__, exc)
    return added


set_label_source(all_labels)  # what the queries' {{MEMORY_LABELS}} expands to
set_label_source(embedded_labels, "EMBEDDED_LABELS")  # and {{EMBEDDED_LABELS}}


register_memory(MemorySpec(
    "insight", "graphmem.insight:InsightMemory",
    ("Query", "Step", "Insight", "ControllerDecision"),
    "EvoGraph-Mem: insights with positive/negative evidence over past task queries",
    embedded_labels=("Query", "Insight")))
register_memory(MemorySpec(
    "experience", "graphmem.experience:ExperienceMemory",
    ("Task", "DecisionGraph", "Action", "EditOperation"),
    "EMG: action decision graphs, corrections and workflows of past tasks",
    embedded_labels=("Task",)))
register_memory(MemorySpec(
    "state", "graphmem.state:StateMemory",
    ("Topic", "Event", "State", "ConversationLock", "Person"),
    "EMIR2 SEMG: events on topic chains and evolving semantic states",
    embedded_labels=("Topic", "Event", "State")))
register_memory(MemorySpec(
    "associative", "graphmem.associative:AssociativeMemory",
    ("Cue", "Tag", "Episode", "SemanticUnit", "Theme", "Timeline"),
    "MRAgent: cue-tag-content graph for multi-step evidence reconstruction",
    embedded_labels=("Episode", "SemanticUnit", "Theme")))

"""Cypher registry: every query is a file ``cypher/<memory>/<verb>_<object>.cypher``.

Each file starts with a ``//`` header::

    // description: one line on what it does
    // params: namespace, text, embedding        (or "none")
    // returns: id, score                         (or "none")
    // mode: read | write

The query's name is its path below ``cypher/`` without the suffix (``state/merge_event``). At load,
the declared params must equal the ``$params`` used in the body, else :class:`QueryRegistryError`
names the file.

A query written once for several labels of graphmem's own vocabulary (the retrieval engine's
round over ``Event`` and ``Episode`` units) declares ``// template: Unit = Event | Episode``; the
registry then holds one query per value, named ``<name>@<Value>`` (``retrieval/search_units@Event``),
with ``{{Unit}}`` replaced by the value and ``{{unit}}`` by its lower case (index names). Values
must match ``^[A-Z][A-Za-z0-9]*$``. Further names follow after ``;``, one value per query in the same
order (``// template: Unit = Event | Episode; Lock = ConversationLock | Timeline``: the ``@Event``
query reads ``{{Lock}}`` as ``ConversationLock``); the first name's value names the query.

A query whose answer holds only plain values (numbers, text, lists and maps of them; no nodes,
relationships or paths) may declare ``// values: plain``: the runner then reads its records as they
come, without the driver's recursive conversion of every nested value (``Record.data()``), which
costs milliseconds on a large nested answer such as a retrieval round.

Label unions over every memory (namespace deletion and counts in ``cypher/core/``) are not
hand-listed: a body may write the placeholder ``{{MEMORY_LABELS}}`` where a label expression goes
(``(n:{{MEMORY_LABELS}})``), and :meth:`CypherRegistry.get` substitutes the labels of the
memories registered *now* (so a memory registered at run time is included), joined by ``|``.
graph/ knows no memory: :mod:`graphmem.memory` installs the source of those labels
(:func:`set_label_source`) when it loads. Each label must match ``^[A-Z][A-Za-z0-9]*$`` (labels
come from graphmem's fixed vocabulary, never from user input), else :class:`QueryRegistryError`.
Every such list has its own placeholder ``{{<KIND>_LABELS}}`` and source: ``{{EMBEDDED_LABELS}}``
stands for the labels whose nodes carry an ``embedding`` (``MemorySpec.embedded_labels``).

A query written once for each label of such a list declares ``// template: Label =
{{EMBEDDED_LABELS}}`` (one name, one list): the registry then answers ``<name>@<Label>``
(``doctor/set_embeddings@Note``) for every label the list holds *now*, with ``{{Label}}`` and
``{{label}}`` replaced as in a fixed template, so a memory registered at run time gets its own
query; a label outside the list is an :class:`UnknownQueryError`, and the bare name is none.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from graphmem.errors import QueryRegistryError, UnknownQueryError

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_HEADER = re.compile(r"^//\s*([a-z_]+)\s*:\s*(.*?)\s*$")
_REQUIRED = ("description", "params", "returns", "mode")
_OPTIONAL = ("template", "values")
_TEMPLATE = re.compile(r"^\s*([A-Z][A-Za-z0-9]*)\s*=\s*(.+?)\s*$")
#: Placeholder for the union of every registered memory's labels (see the module docstring).
MEMORY_LABELS = "{{MEMORY_LABELS}}"
#: Any label-list placeholder: ``{{MEMORY_LABELS}}``, ``{{EMBEDDED_LABELS}}``, ...
_LABEL_LIST = re.compile(r"\{\{([A-Z]+_LABELS)\}\}")
_LABEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
logger = logging.getLogger(__name__)
_STRING_OR_COMMENT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|//[^\n]*")


@dataclass(frozen=True)
class CypherQuery:
    """One named query: its text, declared parameters and mode."""

    name: str
    text: str
    params: frozenset[str]
    returns: tuple[str, ...]
    mode: Literal["read", "write"]
    description: str
    path: Path
    template: str = ""
    plain: bool = False


def used_params(body: str) -> set[str]:
    """The ``$names`` a Cypher body uses, ignoring string literals and ``//`` comments."""
    return set(_PARAM.findall(_STRING_OR_COMMENT.sub(" ", body)))


def parse_query(name: str, source: str, path: Path) -> CypherQuery:
    """Parse one query file's text.

    Raises:
        QueryRegistryError: header fields missing or malformed, unknown mode, empty body, or
            declared params different from used ones; the message names ``path``.
    """
    header: dict[str, str] = {}
    body_lines: list[str] = []
    in_header = True
    for line in source.splitlines():
        match = _HEADER.match(line) if in_header else None
        if match and match.group(1) in _REQUIRED + _OPTIONAL:
            header[match.group(1)] = match.group(2)
            continue
        if in_header and line.strip().startswith("//"):
            continue
        in_header = False
        body_lines.append(line)
    missing = [key for key in _REQUIRED if key not in header]
    if missing:
        raise QueryRegistryError(f"{path}: header lacks {', '.join(missing)}")
    mode = header["mode"].strip().lower()
    if mode not in ("read", "write"):
        raise QueryRegistryError(f"{path}: mode must be read or write, got {header['mode']!r}")
    body = "\n".join(body_lines).strip()
    if not body:
        raise QueryRegistryError(f"{path}: empty query body")
    declared_text = header["params"].strip()
    declared = (
        set()
        if declared_text.lower() in ("", "none")
        else {p.strip().lstrip("$") for p in declared_text.split(",") if p.strip()}
    )
    used = used_params(body)
    if declared != used:
        raise QueryRegistryError(
            f"{path}: declared params {sorted(declared)} != used params {sorted(used)}"
            f" (undeclared: {sorted(used - declared)}, unused: {sorted(declared - used)})"
        )
    returns_text = header["returns"].strip()
    returns = (
        ()
        if returns_text.lower() in ("", "none")
        else tuple(r.strip() for r in returns_text.split(","))
    )
    return CypherQuery(
        name=name,
        text=body,
        params=frozenset(declared),
        returns=returns,
        mode=mode,  # type: ignore[arg-type]
        description=header["description"],
        path=path,
        template=header.get("template", ""),
        plain=_plain(header.get("values", ""), path),
    )


def _plain(values: str, path: object) -> bool:
    """The ``// values:`` header: ``plain`` or absent.

    Raises:
        QueryRegistryError: another value.
    """
    if values.strip() not in ("", "plain"):
        raise QueryRegistryError(f"{path}: '// values:' must be 'plain', got {values!r}")
    return values.strip() == "plain"


def expand_template(query: CypherQuery) -> list[CypherQuery]:
    """The queries a ``// template: Name = A | B[; Other = C | D]`` header stands for (see the
    module docstring); ``[query]`` itself when it has no template or one over a label list
    (``Name = {{KIND_LABELS}}``, answered per label by :meth:`CypherRegistry.get`).

    Raises:
        QueryRegistryError: a malformed template line, names with different numbers of values,
            or a value outside ``^[A-Z][A-Za-z0-9]*$``.
    """
    if not query.template or _dynamic_template(query) is not None:
        return [query]
    keys: list[tuple[str, list[str]]] = []
    for part in query.template.split(";"):
        match = _TEMPLATE.match(part)
        values = [v.strip() for v in match.group(2).split("|")] if match else []
        if not match or not values or not all(_LABEL.match(v) for v in values):
            raise QueryRegistryError(f"{query.path}: template must read 'Name = Label | Label"
                                     f"[; Name = Label | Label]', got {query.template!r}")
        keys.append((match.group(1), values))
    if len({len(values) for _, values in keys}) != 1:
        raise QueryRegistryError(f"{query.path}: every template name needs as many values as the "
                                 f"first, got {query.template!r}")
    out = []
    for i, value in enumerate(keys[0][1]):
        text = query.text
        for key, values in keys:
            text = text.replace("{{" + key + "}}", values[i]).replace("{{" + key.lower() + "}}",
                                                                       values[i].lower())
        out.append(dataclasses.replace(query, name=f"{query.name}@{value}", template="", text=text))
    return out


def _dynamic_template(query: CypherQuery) -> tuple[str, str] | None:
    """``(name, kind)`` of a ``// template: Name = {{KIND_LABELS}}`` header, else None.

    Raises:
        QueryRegistryError: a label list mixed with other names or values.
    """
    if "{{" not in query.template:
        return None
    match = _TEMPLATE.match(query.template)
    kind = _LABEL_LIST.fullmatch(match.group(2)) if match and ";" not in query.template else None
    if kind is None:
        raise QueryRegistryError(f"{query.path}: a template over a label list must read 'Name = "
                                 f"{{{{KIND_LABELS}}}}' alone, got {query.template!r}")
    return match.group(1), kind.group(1)


#: Where each ``{{<KIND>_LABELS}}`` placeholder takes its labels from (see
#: :func:`set_label_source`), by kind (``"MEMORY_LABELS"``).
_label_sources: dict[str, Callable[[], Sequence[str]]] = {}


def set_label_source(source: Callable[[], Sequence[str]], kind: str = "MEMORY_LABELS") -> None:
    """Install ``source`` (no arguments, returns labels in registry order) as what
    ``{{<kind>}}`` expands to: ``"MEMORY_LABELS"`` every registered memory's labels,
    ``"EMBEDDED_LABELS"`` those carrying an embedding. :mod:`graphmem.memory` installs both when
    it loads.

    Raises:
        QueryRegistryError: ``kind`` does not match ``^[A-Z]+_LABELS$``.
    """
    if not re.fullmatch(r"[A-Z]+_LABELS", kind):
        raise QueryRegistryError(f"label source kind must match ^[A-Z]+_LABELS$, got {kind!r}")
    _label_sources[kind] = source


def registered_labels(kind: str = "MEMORY_LABELS") -> tuple[str, ...]:
    """The labels ``{{<kind>}}`` stands for now, in registry order (possibly none).

    Raises:
        QueryRegistryError: no source installed for ``kind`` (``graphmem.memory`` not loaded),
            or a label outside ``^[A-Z][A-Za-z0-9]*$``.
    """
    source = _label_sources.get(kind)
    if source is None:
        raise QueryRegistryError(
            f"{{{{{kind}}}}} stands for labels of the registered memories and no memory registry "
            "is loaded: import graphmem.memory (GraphMemory and every memory class do) first")
    labels = tuple(source())
    bad = [label for label in labels if not _LABEL.match(label)]
    if bad:
        raise QueryRegistryError(f"memory labels {bad!r} do not match ^[A-Z][A-Za-z0-9]*$")
    return labels


def label_union(kind: str = "MEMORY_LABELS") -> str:
    """``"Query|Step|...|Theme"``: the labels ``{{<kind>}}`` stands for, joined by ``|``.

    Raises:
        QueryRegistryError: as :func:`registered_labels`; no label (the union would be empty).
    """
    labels = registered_labels(kind)
    if not labels:
        raise QueryRegistryError("no memory is registered: the label union would be empty"
                                 if kind == "MEMORY_LABELS" else
                                 f"no registered memory declares {{{{{kind}}}}}: the label union "
                                 "would be empty")
    return "|".join(labels)


def memory_label_union() -> str:
    """``"Query|Step|...|Theme"``: the labels of every registered memory, in registry order
    (:func:`label_union` of ``MEMORY_LABELS``).

    Raises:
        QueryRegistryError: as :func:`label_union`.
    """
    return label_union("MEMORY_LABELS")


class CypherRegistry:
    """All queries under a root folder, by name. Load once; lookups are dict reads."""

    def __init__(self, queries: dict[str, CypherQuery]):
        self._queries = dict(queries)
        self._rendered: dict[tuple[str, tuple[str, ...]], CypherQuery] = {}
        self._included: set[Path] = set()  # folders added by include()

    @classmethod
    def load(cls, root: Path | None = None, extra: Iterable[Path] = ()) -> CypherRegistry:
        """Load every ``*.cypher`` below ``root`` (default: the shipped ``cypher/``) and below
        each folder of ``extra`` (e.g. a plugin's or a test's own queries; names are relative to
        their folder).

        Raises:
            QueryRegistryError: for the first bad file, naming it; a name defined twice.
        """
        if root is None:
            from graphmem.resources import resource_dir

            root = resource_dir("cypher")
        queries: dict[str, CypherQuery] = {}
        for folder in (root, *extra):
            for path in sorted(Path(folder).rglob("*.cypher")):
                name = path.relative_to(folder).with_suffix("").as_posix()
                if name in queries:
                    raise QueryRegistryError(f"{path}: query {name!r} is already defined in "
                                             f"{queries[name].path}")
                for query in expand_template(parse_query(name, path.read_text(encoding="utf-8"),
                                                         path)):
                    if query.name in queries:
                        raise QueryRegistryError(f"{path}: query {query.name!r} is already "
                                                 f"defined in {queries[query.name].path}")
                    queries[query.name] = query
        logger.debug("loaded %d Cypher queries from %s", len(queries), root)
        return cls(queries)

    def include(self, folder: Path | str) -> int:
        """Add the queries below ``folder`` (a plugin memory's own, names relative to it) once:
        a folder already included adds nothing. Returns the number of queries added.

        Raises:
            QueryRegistryError: a bad file, or a name already defined by another file.
        """
        folder = Path(folder).resolve()
        included = self._included
        if folder in included:
            return 0
        added = CypherRegistry.load(folder)._queries
        clash = [n for n in added if n in self._queries and self._queries[n].path != added[n].path]
        if clash:
            raise QueryRegistryError(f"{folder}: queries {clash[:3]} are already defined in "
                                     f"{self._queries[clash[0]].path}")
        self._queries.update(added)
        included.add(folder)
        logger.debug("included %d Cypher queries from %s", len(added), folder)
        return len(added)

    def get(self, name: str) -> CypherQuery:
        """The query called ``name`` (``<template>@<Label>`` for a template over a label list),
        with every ``{{<KIND>_LABELS}}`` replaced by the labels registered now.

        Raises:
            UnknownQueryError: naming ``name``. QueryRegistryError: a bad memory label.
        """
        query = self._queries.get(name)
        if query is None:
            query = self._instance(name)
        elif query.template:
            raise UnknownQueryError(f"Cypher query {name!r} is a template over a label list: "
                                    f"ask for {name}@<Label>")
        if "_LABELS}}" not in query.text:
            return query
        kinds = sorted(set(_LABEL_LIST.findall(query.text)))
        unions = tuple(label_union(kind) for kind in kinds)
        rendered = self._rendered.get((name, unions))
        if rendered is None:
            text = query.text
            for kind, union in zip(kinds, unions, strict=True):
                text = text.replace("{{" + kind + "}}", union)
            rendered = dataclasses.replace(query, text=text)
            self._rendered[(name, unions)] = rendered
        return rendered

    def _instance(self, name: str) -> CypherQuery:
        """``<template>@<Label>`` of a template over a label list, for a label it holds now.

        Raises:
            UnknownQueryError: no such template, or a label outside its list.
        """
        base, at, value = name.rpartition("@")
        query = self._queries.get(base) if at else None
        if query is None or not query.template:
            raise UnknownQueryError(f"no Cypher query named {name!r}")
        key, kind = _dynamic_template(query)  # type: ignore[misc]
        labels = registered_labels(kind)
        if value not in labels:
            raise UnknownQueryError(
                f"no Cypher query named {name!r}: {base} is written for the {{{{{kind}}}}} of "
                f"the registered memories, now {', '.join(labels) or 'none'}")
        text = query.text.replace("{{" + key + "}}", value).replace("{{" + key.lower() + "}}",
                                                                    value.lower())
        return dataclasses.replace(query, name=name, template="", text=text)

    def names(self) -> list[str]:
        """All query names, sorted; a template over a label list once per label it holds now
        (none while no source for its list is installed)."""
        out = [name for name, query in self._queries.items() if not query.template]
        for name, query in self._queries.items():
            if query.template:
                _, kind = _dynamic_template(query)  # type: ignore[misc]
                if kind in _label_sources:
                    out += [f"{name}@{label}" for label in registered_labels(kind)]
        return sorted(out)

    def __len__(self) -> int:
        return len(self.names())

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        query = self._queries.get(name)
        if query is not None:
            return not query.template
        try:
            self._instance(name)
        except (UnknownQueryError, QueryRegistryError):
            return False
        return True

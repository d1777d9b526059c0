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
    module docstring); ``[query]`` itself when it has no template.

    Raises:
        QueryRegistryError: a malformed template line, names with different numbers of values,
            or a value outside ``^[A-Z][A-Za-z0-9]*$``.
    """
    if not query.template:
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


#: Where ``{{MEMORY_LABELS}}`` takes its labels from (see :func:`set_label_source`).
_label_source: Callable[[], Sequence[str]] | None = None


def set_label_source(source: Callable[[], Sequence[str]]) -> None:
    """Install ``source`` (no arguments, returns the registered memories' labels in registry
    order) as what ``{{MEMORY_LABELS}}`` expands to. :mod:`graphmem.memory` installs
    ``all_labels`` when it loads."""
    global _label_source
    _label_source = source


def memory_label_union() -> str:
    """``"Query|Step|...|Theme"``: the labels of every registered memory, in registry order.

    Raises:
        QueryRegistryError: no label source installed (``graphmem.memory`` not loaded), no
            memory registered, or a label outside ``^[A-Z][A-Za-z0-9]*$``.
    """
    if _label_source is None:
        raise QueryRegistryError(
            "{{MEMORY_LABELS}} stands for the registered memories' labels and no memory registry "
            "is loaded: import graphmem.memory (GraphMemory and every memory class do) first")
    labels = tuple(_label_source())
    if not labels:
        raise QueryRegistryError("no memory is registered: the label union would be empty")
    bad = [label for label in labels if not _LABEL.match(label)]
    if bad:
        raise QueryRegistryError(f"memory labels {bad!r} do not match ^[A-Z][A-Za-z0-9]*$")
    return "|".join(labels)


class CypherRegistry:
    """All queries under a root folder, by name. Load once; lookups are dict reads."""

    def __init__(self, queries: dict[str, CypherQuery]):
        self._queries = dict(queries)
        self._rendered: dict[tuple[str, str], CypherQuery] = {}
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
        """The query called ``name``, with ``{{MEMORY_LABELS}}`` replaced by the labels of the
        memories registered now.

        Raises:
            UnknownQueryError: naming ``name``. QueryRegistryError: a bad memory label.
        """
        try:
            query = self._queries[name]
        except KeyError:
            raise UnknownQueryError(f"no Cypher query named {name!r}") from None
        if MEMORY_LABELS not in query.text:
            return query
        union = memory_label_union()
        rendered = self._rendered.get((name, union))
        if rendered is None:
            rendered = dataclasses.replace(query, text=query.text.replace(MEMORY_LABELS, union))
            self._rendered[(name, union)] = rendered
        return rendered

    def names(self) -> list[str]:
        """All query names, sorted."""
        return sorted(self._queries)

    def __len__(self) -> int:
        return len(self._queries)

    def __contains__(self, name: object) -> bool:
        return name in self._queries

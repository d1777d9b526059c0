"""Per-call JSON schemas for structured LLM output, and a checker for them.

A pydantic model says what shape a reply has; a call often knows more: which ids exist in this
batch, how many turns were shown, that a text must not be empty. :func:`constrained_schema`
writes those call-specific rules into the model's JSON schema (``enum``, ``minimum`` /
``maximum``, ``minLength``, ``maxLength``, ``maxItems``). A local model decodes under that
schema (the reply cannot leave it), and :func:`graphmem.llm.invoke_structured` checks every
reply against it with :func:`check_json_schema`, whatever the model.

Only the subset of JSON Schema that pydantic emits and :func:`constrained_schema` adds is
understood: ``type``, ``properties``, ``required``, ``items``, ``prefixItems``, ``anyOf``,
``enum``, ``const``, ``minimum``/``maximum``, ``minLength``/``maxLength`` (``minLength`` counts
the text without surrounding white space: "non-empty" means "not blank"),
``minItems``/``maxItems``, and local ``$ref``s (inlined by :func:`inline_refs`).

What a schema says in words (descriptions, titles, enum listings), which a reply must not echo,
is read by :mod:`graphmem.llm_echo` (``normalise_text``, ``schema_phrases`` and
``without_prose`` are importable from here too).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from graphmem.llm_echo import normalise_text, schema_phrases, without_prose  # noqa: F401 (re-export)

logger = logging.getLogger(__name__)

_MAX_DEPTH = 32


class SchemaPathError(KeyError):
    """A constraint names a field path that the schema does not have."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def inline_refs(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` with every local ``$ref`` (``#/$defs/Name``) replaced by the
    definition it points to, and without ``$defs``, so each field path has its own sub-schema.

    Raises:
        SchemaPathError: a ``$ref`` that is not local, names no definition, or is recursive.
    """
    defs = schema.get("$defs", {})

    def walk(node: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise SchemaPathError("recursive schema: $ref nesting deeper than 32")
        if isinstance(node, list):
            return [walk(n, depth + 1) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            ref = node["$ref"]
            name = ref.removeprefix("#/$defs/")
            if not ref.startswith("#/$defs/") or name not in defs:
                raise SchemaPathError(f"unresolvable $ref {ref!r}")
            merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
            return walk(merged, depth + 1)
        return {k: walk(v, depth + 1) for k, v in node.items() if k != "$defs"}

    return walk(dict(schema), 0)


def _branches(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The non-null alternatives of ``node`` (itself, or its ``anyOf`` members)."""
    if "anyOf" in node:
        return [b for b in node["anyOf"] if b.get("type") != "null"]
    return [node]


def _resolve(schema: dict[str, Any], path: str) -> list[dict[str, Any]]:
    """The sub-schemas a dotted field path names; lists are entered implicitly
    (``"items.index"`` is the ``index`` of every element of ``items``)."""
    nodes = [schema]
    for part in path.split("."):
        found: list[dict[str, Any]] = []
        for node in nodes:
            for branch in _branches(node):
                while branch.get("type") == "array" and "items" in branch:
                    branch = branch["items"]
                for inner in _branches(branch):
                    prop = inner.get("properties", {}).get(part)
                    if prop is not None:
                        found.append(prop)
        if not found:
            raise SchemaPathError(f"no field {path!r} in the schema (at {part!r})")
        nodes = found
    return nodes


def _targets(node: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The alternatives of ``node`` of JSON type ``kind``, looking through arrays."""
    out = []
    for branch in _branches(node):
        if kind != "array":
            while branch.get("type") == "array" and "items" in branch:
                branch = branch["items"]
        out.extend(b for b in _branches(branch) if b.get("type") == kind or
                   (kind == "integer" and b.get("type") == "number"))
    return out


def _strings(node: Any, skip_empty_default: bool, in_default_empty: bool = False,
             ) -> Iterable[dict[str, Any]]:
    """Every free (non-enum) string sub-schema under ``node``; with ``skip_empty_default``,
    not those of a property whose default is ``""`` (it may legitimately be empty)."""
    if isinstance(node, list):
        for n in node:
            yield from _strings(n, skip_empty_default, in_default_empty)
        return
    if not isinstance(node, dict):
        return
    empty = in_default_empty or (skip_empty_default and node.get("default") == "")
    if node.get("type") == "string" and not {"enum", "const"} & node.keys() and not empty:
        yield node
    for key in ("anyOf", "items"):
        if key in node:
            yield from _strings(node[key], skip_empty_default, empty)
    for prop in node.get("properties", {}).values():
        yield from _strings(prop, skip_empty_default)


def constrained_schema(
    model: type[BaseModel] | Mapping[str, Any],
    *,
    enums: Mapping[str, Sequence[Any]] | None = None,
    ranges: Mapping[str, tuple[int | float | None, int | float | None]] | None = None,
    min_length: bool | Iterable[str] = False,
    max_length: int | None = None,
    max_items: Mapping[str, int] | None = None,
    min_items: Mapping[str, int] | None = None,
    required_if: Mapping[str, tuple[str, Any]] | None = None,
    one_each: Mapping[str, Sequence[Any]] | None = None,
) -> dict[str, Any]:
    """The JSON schema of ``model`` (a pydantic model class, or a JSON schema dict) with
    call-specific rules added; ``$ref``s are inlined so each path is constrained on its own.

    Paths are dotted field names; a list field is entered implicitly, so ``"items.index"`` is
    the ``index`` of every element of ``items`` and ``"selected"`` (a ``list[int]``) constrains
    each number of the list.

    Args:
        model: the pydantic model the reply must parse into (or its JSON schema).
        enums: path -> allowed values (e.g. the ids of this batch); an empty list is refused.
        ranges: path -> ``(minimum, maximum)`` for numbers, inclusive, ``None`` = open end
            (e.g. ``{"items.index": (0, n - 1)}``).
        min_length: ``True``: every string must be non-blank, except enum strings and fields
            whose default is ``""``; or an iterable of paths to make non-blank.
        max_length: a maximum length (characters) for every free string, bounding the reply.
        max_items: path -> maximum number of elements of that list field.
        min_items: path -> minimum number of elements of that list field.
        required_if: path -> ``(sibling, value)``: the field must be present, non-null and
            non-blank when its sibling field equals ``value`` (e.g. ``{"new_insight": ("add",
            True)}``); the sibling must be a boolean or an enum. Written as an ``anyOf`` of the
            two cases, which a grammar can enforce.
        one_each: path -> values: the list holding that field has exactly one element per
            value, in that order (e.g. ``{"edits.insight_id": ids}``: one edit per insight).

    Returns:
        A new JSON schema dict (the input is not modified).

    Raises:
        SchemaPathError: a path that the schema does not have.
        ValueError: an empty enum, or a range whose minimum exceeds its maximum.
    """
    raw = model.model_json_schema() if isinstance(model, type) else copy.deepcopy(dict(model))
    schema = inline_refs(raw)
    for path, values in (enums or {}).items():
        values = list(values)
        if not values:
            raise ValueError(f"empty enum for {path!r}: no value could satisfy it")
        for node in _resolve(schema, path):
            for t in _branches(node):
                while t.get("type") == "array" and "items" in t:
                    t = t["items"]
                t.pop("const", None)
                t["enum"] = values
    for path, (low, high) in (ranges or {}).items():
        if low is not None and high is not None and low > high:
            raise ValueError(f"empty range for {path!r}: {low} > {high}")
        for node in _resolve(schema, path):
            for t in _targets(node, "integer"):
                if low is not None:
                    t["minimum"] = low
                if high is not None:
                    t["maximum"] = high
    if min_length is True:
        for node in _strings(schema, True):
            node["minLength"] = max(1, node.get("minLength", 0))
    elif min_length:
        for path in min_length:
            for node in _resolve(schema, path):
                for t in _targets(node, "string"):
                    t["minLength"] = max(1, t.get("minLength", 0))
    if max_length is not None:
        for node in _strings(schema, False):
            node["maxLength"] = min(max_length, node.get("maxLength", max_length))
    for key, bounds in (("maxItems", max_items), ("minItems", min_items)):
        for path, count in (bounds or {}).items():
            for node in _resolve(schema, path):
                for t in _branches(node):
                    if t.get("type") == "array":
                        t[key] = count
    for path, (sibling, value) in (required_if or {}).items():
        for obj in _parents(schema, path):
            _split_on(obj, path.rpartition(".")[2], sibling, value)
    for path, values in (one_each or {}).items():
        _one_each(schema, path, list(values))
    return schema


def _parents(schema: dict[str, Any], path: str) -> list[dict[str, Any]]:
    """The object schemas holding the last field of ``path`` (lists entered implicitly)."""
    head, _, field = path.rpartition(".")
    nodes = _resolve(schema, head) if head else [schema]
    out = []
    for node in nodes:
        for t in _targets(node, "object") or _branches(node):
            if field in t.get("properties", {}):
                out.append(t)
    if not out:
        raise SchemaPathError(f"no field {path!r} in the schema")
    return out


def _split_on(obj: dict[str, Any], field: str, sibling: str, value: Any) -> None:
    """Rewrite ``obj`` in place as ``anyOf`` [sibling != value, sibling == value and ``field``
    required, non-null, non-blank]."""
    props = obj.get("properties", {})
    if sibling not in props:
        raise SchemaPathError(f"no field {sibling!r} beside {field!r}")
    sib = props[sibling]
    if sib.get("type") == "boolean" and isinstance(value, bool):
        others: list[Any] = [not value]
    elif "enum" in sib and value in sib["enum"]:
        others = [v for v in sib["enum"] if v != value]
    else:
        raise ValueError(f"required_if: {sibling!r} must be a boolean or an enum holding "
                         f"{value!r}")
    off, on = copy.deepcopy(obj), copy.deepcopy(obj)
    off["properties"][sibling] = {**sib, "enum": others}
    on["properties"][sibling] = {**sib, "enum": [value]}
    target = on["properties"][field]
    kept = {k: v for k, v in target.items() if k not in ("anyOf", "default")}
    branches = _branches(target)
    target = {**branches[0], **kept} if len(branches) == 1 else {**kept, "anyOf": branches}
    for t in _branches(target):
        if t.get("type") == "string":
            t["minLength"] = max(1, t.get("minLength", 0))
    on["properties"][field] = target
    on["required"] = [*on.get("required", []), *([field] if field not in
                                                   on.get("required", []) else [])]
    variants = [v for v in (off, on) if v["properties"][sibling]["enum"]]
    obj.clear()
    obj["anyOf"] = variants


def _one_each(schema: dict[str, Any], path: str, values: list[Any]) -> None:
    """Turn the list holding ``path``'s last field into a tuple: one element per value."""
    head, _, field = path.rpartition(".")
    if not head or not values:
        raise ValueError(f"one_each needs a list field and values: {path!r}")
    for node in _resolve(schema, head):
        for arr in _branches(node):
            if arr.get("type") != "array" or not isinstance(arr.get("items"), dict):
                raise SchemaPathError(f"{head!r} is not a list of objects")
            item = arr.pop("items")
            tuple_items = []
            for v in values:
                element = copy.deepcopy(item)
                for t in _branches(element):
                    if field not in t.get("properties", {}):
                        raise SchemaPathError(f"no field {path!r} in the schema")
                    t["properties"][field] = {**t["properties"][field], "enum": [v]}
                tuple_items.append(element)
            arr.update(prefixItems=tuple_items, minItems=len(values), maxItems=len(values))


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "object": (dict,), "array": (list,), "null": (type(None),),
}


def _type_ok(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES.get(kind, (object,)))


def json_schema_errors(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Every violation of ``schema`` by ``value`` (parsed JSON), as ``"path: problem"`` lines;
    empty when ``value`` conforms. See the module docstring for the keywords understood."""
    schema = inline_refs(schema) if "$defs" in schema or "$ref" in schema else schema
    errors: list[str] = []
    _check(value, schema, path, errors)
    return errors


def _check(value: Any, node: Mapping[str, Any], path: str, errors: list[str]) -> None:
    if "anyOf" in node:
        for branch in node["anyOf"]:
            sub: list[str] = []
            _check(value, branch, path, sub)
            if not sub:
                return
        errors.append(f"{path}: {value!r} matches none of the allowed alternatives")
        return
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    if kinds and not any(_type_ok(value, k) for k in kinds):
        errors.append(f"{path}: expected {'/'.join(kinds)}, got {type(value).__name__}")
        return
    if "enum" in node and value not in node["enum"]:
        errors.append(f"{path}: {value!r} is not one of {node['enum']!r}")
    if "const" in node and value != node["const"]:
        errors.append(f"{path}: {value!r} is not {node['const']!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in node and value < node["minimum"]:
            errors.append(f"{path}: {value} is below the minimum {node['minimum']}")
        if "maximum" in node and value > node["maximum"]:
            errors.append(f"{path}: {value} is above the maximum {node['maximum']}")
    if isinstance(value, str):
        if "minLength" in node and len(value.strip()) < node["minLength"]:
            errors.append(f"{path}: text is empty or shorter than {node['minLength']}")
        if "maxLength" in node and len(value) > node["maxLength"]:
            errors.append(f"{path}: text is longer than {node['maxLength']} characters")
    if isinstance(value, list):
        if "minItems" in node and len(value) < node["minItems"]:
            errors.append(f"{path}: fewer than {node['minItems']} items")
        if "maxItems" in node and len(value) > node["maxItems"]:
            errors.append(f"{path}: more than {node['maxItems']} items")
        prefix = node.get("prefixItems") or []
        for i, item in enumerate(value):
            sub_schema = prefix[i] if i < len(prefix) else node.get("items")
            if isinstance(sub_schema, Mapping):
                _check(item, sub_schema, f"{path}[{i}]", errors)
    if isinstance(value, dict):
        for name in node.get("required", []):
            if name not in value:
                errors.append(f"{path}: missing required field {name!r}")
        for name, sub_schema in node.get("properties", {}).items():
            if name in value:
                _check(value[name], sub_schema, f"{path}.{name}", errors)


def check_json_schema(value: Any, schema: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` listing the violations (at most 5) when ``value`` does not conform to
    ``schema``; return ``None`` otherwise."""
    errors = json_schema_errors(value, schema)
    if errors:
        more = f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""
        raise ValueError("reply breaks the call's schema: " + "; ".join(errors[:5]) + more)

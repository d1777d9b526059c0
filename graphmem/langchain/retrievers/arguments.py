"""What a graphmem retriever accepts, checked before anything runs: ``search_kwargs`` as
LangChain vector-store retrievers take them, metadata filters, and each memory's typed recall
options (:attr:`graphmem.memory.Memory.options_model`) for ``recall_kwargs``. Pure checks: no
query runs here."""

from __future__ import annotations

from typing import Any

import pydantic
from langchain_core.documents import Document

from graphmem.errors import InvalidInputError
from graphmem.memory import memory_names, memory_spec
from graphmem.recall_options import WINDOW_OPTIONS, RecallOptions

#: The time-window arguments (retriever fields, also accepted in ``search_kwargs``).
WINDOW_KEYS = WINDOW_OPTIONS

#: Keys ``search_kwargs`` may hold (as LangChain vector-store retrievers accept them, plus the
#: time window).
SEARCH_KWARGS = ("k", "score_threshold", "filter", "since", "until", "as_of",
                 "include_archived")
#: Metadata keys a ``filter`` may test.
FILTER_KEYS = ("kind", "memory")

def _check_filter(value: Any) -> dict[str, tuple[str, ...]] | None:
    """``{key: accepted values}`` of a metadata filter, or None. Raises InvalidInputError."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidInputError(f"filter must be a dict over {list(FILTER_KEYS)}, got {value!r}")
    out: dict[str, tuple[str, ...]] = {}
    for key, accepted in value.items():
        if key not in FILTER_KEYS:
            raise InvalidInputError(f"filter key {key!r} is not supported; supported: "
                                    f"{list(FILTER_KEYS)} (equality or a list of values)")
        values = accepted if isinstance(accepted, (list, tuple, set, frozenset)) else [accepted]
        if not values or not all(isinstance(v, str) for v in values):
            raise InvalidInputError(f"filter {key!r} must be a string or a non-empty list of "
                                    f"strings, got {accepted!r}")
        out[key] = tuple(values)
    return out


def _merge_search_kwargs(cls_name: str, data: dict[str, Any]) -> dict[str, Any]:
    """Move ``search_kwargs`` entries onto the retriever's own fields (refusing unknown keys
    and a value given twice differently)."""
    extra = data.get("search_kwargs")
    if extra is None:
        return data
    if not isinstance(extra, dict):
        raise InvalidInputError(f"{cls_name}: search_kwargs must be a dict, got {extra!r}")
    unknown = sorted(set(extra) - set(SEARCH_KWARGS))
    if unknown:
        raise InvalidInputError(f"{cls_name}: search_kwargs key(s) {unknown!r} are not "
                                f"supported; supported: {list(SEARCH_KWARGS)}")
    merged = {key: value for key, value in data.items() if key != "search_kwargs"}
    for key, value in extra.items():
        if key in merged and merged[key] != value:
            raise InvalidInputError(f"{cls_name}: {key} given twice: {merged[key]!r} and "
                                    f"search_kwargs[{key!r}]={value!r}")
        merged[key] = value
    return merged


def select_documents(docs: list[Document], score_threshold: float | None,
                     metadata_filter: dict[str, tuple[str, ...]] | None) -> list[Document]:
    """``docs`` without those whose metadata ``score`` is below ``score_threshold`` or whose
    metadata misses ``metadata_filter`` (each key one of its accepted values); order kept."""
    out = []
    for doc in docs:
        score = doc.metadata.get("score")
        if score_threshold is not None and (not isinstance(score, (int, float))
                                            or score < score_threshold):
            continue
        if metadata_filter and any(doc.metadata.get(key) not in accepted
                                   for key, accepted in metadata_filter.items()):
            continue
        out.append(doc)
    return out


def options_model(memory: str) -> type[RecallOptions]:
    """The typed recall options of registered memory ``memory`` (its class's
    :attr:`~graphmem.memory.Memory.options_model`).

    Raises:
        InvalidInputError: an unknown memory name.
    """
    return memory_spec(memory).load().options_model


def recall_options(memory: str) -> tuple[str, ...]:
    """The names of registered memory ``memory``'s recall options that ``recall_kwargs`` may
    hold: the fields of its :func:`options_model` other than the time window, instant and
    archived units (the retrievers' own arguments).

    Raises:
        InvalidInputError: an unknown memory name.
    """
    return tuple(n for n in options_model(memory).names() if n not in WINDOW_KEYS)


def _check_memory(name: str) -> str:
    if name not in memory_names():
        raise ValueError(f"unknown memory {name!r}: use one of {', '.join(memory_names())}")
    return name


def _takes_window(memory: str, keys: tuple[str, ...] = ("since", "until")) -> bool:
    """Whether registered memory ``memory``'s recall options include every one of ``keys``."""
    return options_model(memory).takes(*keys)


def _check_recall_kwargs(memory: str, options: dict[str, Any]) -> None:
    """``options`` checked against ``memory``'s option model (names, types and bounds).

    Raises:
        ValueError: a window key (it goes in the retriever's own fields), an option the memory
            does not take, or a bad value (naming it); raised inside the retriever's validator.
    """
    window = sorted(set(options) & set(WINDOW_KEYS))
    if window:
        raise ValueError(f"{window!r} go in the retriever's own since / until / as_of / "
                         "include_archived (or search_kwargs), "
                         "not in recall_kwargs")
    model = options_model(memory)
    unknown = sorted(set(options) - set(recall_options(memory)))
    if unknown:
        raise ValueError(f"recall option(s) {unknown!r} are not options of {memory} memory "
                         f"(allowed: {list(recall_options(memory))})")
    try:
        model.parse(options)
    except InvalidInputError as exc:
        raise ValueError(str(exc)) from None


def _pydantic_message(exc: pydantic.ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(x) for x in first["loc"]) or "retriever"
    return f"{where}: {first['msg']} (got {first.get('input')!r})"


__all__ = ["FILTER_KEYS", "SEARCH_KWARGS", "WINDOW_KEYS", "options_model", "recall_options",
           "select_documents"]

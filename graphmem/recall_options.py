"""Typed recall options: what a memory's ``recall`` takes besides ``query`` and ``k``, declared
as a pydantic model (as neo4j-graphrag's retriever configs and graphiti's search configs declare
theirs).

Every memory class names its model in ``Memory.options_model``; the retrievers, the fused recall,
the MCP server and the CLI read the model (its fields, types and bounds) instead of the
signature of ``recall``, and :meth:`RecallOptions.parse` turns a mapping of options into a
checked instance or a typed :class:`~graphmem.errors.InvalidInputError` naming the bad option,
its value and what is allowed. A memory's ``recall(query, k, **options)`` keeps its keyword
parameters; ``recall_with(query, k, options)`` takes an instance.

One ``k`` default for every entry point (:data:`DEFAULT_K`): the facade, each memory's
``recall``, the retrievers, the MCP tools and the LangChain tools; one cap (:data:`MAX_K`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Self

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import InvalidInputError

#: Items a recall returns when the caller names no ``k`` (facade, memories, retrievers, MCP
#: tools, LangChain tools and the CLI agree on it).
DEFAULT_K = 10
#: Largest ``k`` any recall accepts.
MAX_K = 200
#: Options that describe *when* (a time window, an instant, archived units), which the
#: retrievers and the fused recall take as their own fields rather than per memory.
WINDOW_OPTIONS = ("since", "until", "as_of", "include_archived")


class RecallOptions(BaseModel):
    """Base of every memory's recall options: no option. Frozen, unknown names refused.

    Subclass it with one field per keyword parameter of the memory's ``recall`` (besides
    ``query`` and ``k``), with the same default; a test checks that model and signature agree.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    #: The memory these options belong to (for error messages); set by subclasses.
    memory: ClassVar[str] = "this"

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The option names, in declaration order (``("max_rounds", "since", ...)``)."""
        return tuple(cls.model_fields)

    @classmethod
    def takes(cls, *keys: str) -> bool:
        """Whether every one of ``keys`` is an option of this model."""
        return all(key in cls.model_fields for key in keys)

    @classmethod
    def parse(cls, values: Any = None, *, where: str | None = None) -> Self:
        """``values`` (a mapping of option names to values, an instance of this model, or None)
        as a checked instance.

        Args:
            values: the options; None or ``{}`` gives the defaults.
            where: who asks, for the error message (e.g. ``"StateRetriever.recall_kwargs"``).
        Raises:
            InvalidInputError: not a mapping, an option this memory's recall does not take
                (naming the allowed ones), or a value of the wrong type or out of bounds
                (naming the option and the value).
        """
        if isinstance(values, cls):
            return values
        prefix = f"{where}: " if where else ""
        if values is None:
            values = {}
        if not isinstance(values, dict):
            raise InvalidInputError(f"{prefix}recall options must be a dict of option names to "
                                    f"values, got {type(values).__name__}")
        unknown = sorted(set(values) - set(cls.model_fields))
        if unknown:
            raise InvalidInputError(
                f"{prefix}recall option(s) {unknown!r} are not options of {cls.memory} memory "
                f"(allowed: {list(cls.names())})")
        try:
            return cls(**values)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            name = ".".join(str(x) for x in first["loc"]) or "options"
            raise InvalidInputError(f"{prefix}recall option {name}: {first['msg']} "
                                    f"(got {first.get('input')!r})") from None

    def keywords(self) -> dict[str, Any]:
        """The options the caller set, as keyword arguments of ``recall`` (defaults left to
        the memory)."""
        return {name: getattr(self, name) for name in self.model_fields_set}


class TimeWindowOptions(RecallOptions):
    """Recall options of a memory whose items have a time: the half-open window
    ``since <= t < until`` and the instant ``as_of`` (time-zone-aware datetimes; None: open /
    now). Checked again by the memory (:func:`graphmem.timeparse.check_as_of`)."""

    since: datetime | None = Field(None, description="only items with since <= time (aware)")
    until: datetime | None = Field(None, description="only items with time < until (aware)")
    as_of: datetime | None = Field(None, description="answer as at this instant (aware)")


class ArchiveWindowOptions(TimeWindowOptions):
    """:class:`TimeWindowOptions` of a memory whose conversation units retention may archive
    (:mod:`graphmem.agent.retention`): ``include_archived`` asks for them too."""

    include_archived: bool = Field(False, strict=True,
                                   description="also units archived by retention")


__all__ = ["ArchiveWindowOptions", "DEFAULT_K", "MAX_K", "RecallOptions", "TimeWindowOptions",
           "WINDOW_OPTIONS"]

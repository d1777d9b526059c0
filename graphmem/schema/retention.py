"""Namespaced bookkeeping that belongs to no memory: a namespace's retention policy.

A :class:`RetentionPolicy` holds the rules ``GraphMemory.retain`` applies to the namespace's
conversation units (state memory's Events, associative memory's Episodes; see
:mod:`graphmem.agent.retention`): ``max_age_days`` (archive units that occurred more than that
many days before the run) and ``keep_last`` (archive all but the newest that many units of each
conversation). One node per namespace (its id is derived from the namespace), written by
``GraphMemory.set_retention``, deleted with the namespace. Constraint and index:
migrations/V0150.
"""

from __future__ import annotations

from neomodel import DateTimeProperty, IntegerProperty

from graphmem.schema.base import GraphmemNode


class RetentionPolicy(GraphmemNode):
    """The retention rules of one namespace (no relationships).

    ``max_age_days``: days (int >= 1) or absent: no age rule. ``keep_last``: units per
    conversation (int >= 1) or absent: no count rule. ``updated_at``: when the rules were last
    set.
    """

    max_age_days = IntegerProperty()
    keep_last = IntegerProperty()
    updated_at = DateTimeProperty()

"""Namespaced bookkeeping that belongs to no memory: the audit trail of lifecycle operations.

An :class:`AuditRecord` is written by every ``GraphMemory.forget`` (``action="forget"``): who
asked, when, which selectors (as salted SHA-256 digests, never the values: a forgotten message
id or speaker name must not survive its forget) and how many nodes and relationships went, by
label and type; and by every ``GraphMemory.retain`` run that archived something
(``action="retain"``: the policy applied and the units archived per label and rule). It holds
no message content. Constraint and index: migrations/V0140. Deleting
the namespace deletes its audit records too.
"""

from __future__ import annotations

from neomodel import StringProperty

from graphmem.schema.base import GraphmemNode


class AuditRecord(GraphmemNode):
    """One lifecycle operation on a namespace (no relationships).

    ``action``: ``"forget"`` or ``"retain"``. ``actor``: who asked (free text the caller gives, default
    ``"unknown"``). ``selectors``: JSON object, selector name -> list of
    ``sha256(namespace + "\\x1f" + value)`` hex digests. ``counts``: JSON object of what was
    removed (``{"nodes": {label: n}, "relationships": {type: n}, "messages": n}``) or archived
    (``{"archived": {label: n}, "by_rule": {rule: {label: n}}, "kept": {label: n}, ...}``).
    """

    action = StringProperty(required=True)
    actor = StringProperty()
    selectors = StringProperty()
    counts = StringProperty()

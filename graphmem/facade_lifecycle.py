"""The facade's lifecycle verbs (a mixin of :class:`graphmem.facade.GraphMemory`): forget,
audit records, retention, export and import of the namespace, and deleting it. Each delegates to its module
(:mod:`graphmem.agent.forget`, :mod:`graphmem.agent.retention`, :mod:`graphmem.lifecycle`),
imported when first used. docs/lifecycle.md describes them together."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from graphmem.errors import InvalidInputError

logger = logging.getLogger(__name__)


class LifecycleVerbs:
    """Lifecycle verbs of a facade (``self`` is a :class:`graphmem.facade.GraphMemory`)."""

    def forget(self, *, message_ids: Sequence[str] | None = None,
               conversation_id: str | None = None, speaker: str | None = None,
               actor: str | None = None, dry_run: bool = False) -> Any:
        """Remove the selected messages and everything derived from them from every memory
        (every given selector must match; at least one), rebuild what remains of their
        conversations, and write an audit record (no content). Idempotent.
        See :func:`graphmem.agent.forget.forget`.

        Returns:
            :class:`graphmem.agent.forget.ForgetReport` (messages, nodes / relationships
            removed per label / type, audit id).
        Raises:
            InvalidInputError (no selector, a bad id; nothing written), IncompleteForgetError
            (a rebuild failed: ``err.complete(mem)`` finishes it), DatabaseError subclasses.
        """
        from graphmem.agent.forget import forget

        return forget(self, message_ids=message_ids, conversation_id=conversation_id,
                      speaker=speaker, actor=actor, dry_run=dry_run)

    def audit_records(self, limit: int = 100) -> list[dict[str, Any]]:
        """This namespace's audit records, newest first (:func:`graphmem.agent.forget.audit_records`)."""
        from graphmem.agent.forget import audit_records

        return audit_records(self, limit)

    def set_retention(self, max_age_days: int | None = None, keep_last: int | None = None) -> Any:
        """Store this namespace's retention policy (days; units per conversation; both None
        clears it): :func:`graphmem.agent.retention.set_retention`."""
        from graphmem.agent import retention

        return retention.set_retention(self, max_age_days=max_age_days, keep_last=keep_last)

    def retention(self) -> Any:
        """This namespace's retention policy or None (:func:`graphmem.agent.retention.retention`)."""
        from graphmem.agent import retention

        return retention.retention(self)

    def retain(self, batch_size: int = 1_000, progress: Callable[[int], None] | None = None,
               dry_run: bool = False) -> Any:
        """Archive (never delete) the conversation units the retention policy selects, in
        write batches of at most ``batch_size``: :func:`graphmem.agent.retention.retain`."""
        from graphmem.agent import retention

        return retention.retain(self, batch_size=batch_size, progress=progress, dry_run=dry_run)

    def export_namespace(self, path: Any, progress: Callable[[int], None] | None = None) -> Any:
        """Write every node and relationship of this namespace to the JSON-lines file ``path``
        (docs/export-import.md); ``progress(n)`` gets the nodes of each page written.
        See :func:`graphmem.lifecycle.export.export_namespace`.

        Returns:
            :class:`graphmem.lifecycle.ExportReport` (lines per label / type, bytes, seconds).
        Raises:
            InvalidInputError (a missing folder, a value the format cannot carry), OSError,
            DatabaseError subclasses.
        """
        from graphmem.lifecycle import export_namespace

        return export_namespace(self, path, progress=progress)

    def import_namespace(self, path: Any, progress: Callable[[int], None] | None = None) -> Any:
        """Write the export at ``path`` into this namespace, which must be empty (or hold the
        interrupted import of the same file, which then resumes); ids are mapped when the
        export comes from another namespace. ``progress(n)`` gets the lines of each committed
        batch. See :func:`graphmem.lifecycle.import_.import_namespace`.

        Returns:
            :class:`graphmem.lifecycle.ImportReport`.
        Raises:
            FormatVersionError, InputFormatError (file and line; nothing written),
            NamespaceNotEmptyError, EmbeddingDimensionError, DatabaseError subclasses.
        """
        from graphmem.lifecycle import import_namespace

        return import_namespace(self, path, progress=progress)

    def delete_namespace(self, batch_size: int = 10_000, *,
                         progress: Callable[[int], None] | None = None) -> int:
        """Delete every node of this namespace (the labels of every registered memory, its
        audit records and retention policy) with its relationships, in write transactions of at
        most ``batch_size`` nodes each (so a large tenant never needs one huge transaction),
        until none is left. Other namespaces are not touched. Explicit and irreversible: memory
        edits archive, only this deletes.

        Args:
            batch_size: nodes per write transaction (>= 1).
            progress: called with the number of nodes deleted by each transaction.
        Returns:
            The number of nodes deleted.
        Raises:
            InvalidInputError: ``batch_size`` < 1. DatabaseError subclasses.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInputError(f"batch_size must be a positive integer, got {batch_size!r}")
        total = 0
        while True:
            rows = self.runner.write("core/delete_namespace_batch", namespace=self.namespace,
                                     batch=batch_size)
            deleted = int(rows[0]["deleted"]) if rows else 0
            if deleted == 0:
                logger.info("deleted namespace %r: %d nodes", self.namespace, total)
                return total
            total += deleted
            if progress is not None:
                progress(deleted)

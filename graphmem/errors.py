"""graphmem's exception tree. Every error graphmem raises derives from :class:`GraphmemError`.

::

    GraphmemError
    ├── ConfigurationError            bad or missing settings (names the setting)
    │   └── DataNotFoundError         a dataset file or folder is missing (names it and its source)
    ├── InvalidInputError             bad input (names the offending value); also a ValueError
    │   ├── EmptyTextError            empty or whitespace-only text
    │   ├── EmbeddingDimensionError   dimension 0, > 4096, NaN, or different from the index
    │   ├── TrajectoryError           a trajectory without actions, a malformed record
    │   ├── InputFormatError          a malformed JSON/JSONL line or file (names file and line)
    │   │   └── FormatVersionError    a namespace export of a newer format version (names it)
    │   └── NamespaceNotEmptyError    an import into a namespace that already holds nodes
    ├── QueryRegistryError            a Cypher file's header disagrees with its body (names the file)
    ├── UnknownQueryError             a query name that is not in the registry
    ├── MigrationError                a migration failed, or an applied one changed on disk
    │   └── MigrationLockedError      another process holds the migration lock
    ├── ControllerError               an LLM controller/extractor gave invalid output twice
    ├── LauncherError                 the local Neo4j launcher could not be built or started
    └── DatabaseError                 a Neo4j error, translated (``__cause__`` keeps the original)
        ├── PartialWriteError         a write failed in one memory after others committed it
        │                             (names both; carries what to re-send to complete it)
        ├── IncompleteForgetError     a forget removed messages but could not rebuild the rest
        │                             of their conversations (carries them, to ingest again)
        ├── ServiceUnavailableError   the server cannot be reached
        ├── AuthenticationError       credentials were refused
        ├── ConstraintViolationError  a uniqueness constraint was violated
        └── QueryError                the server rejected a query (syntax, types, ...)
"""

from __future__ import annotations


class GraphmemError(Exception):
    """Root of every error graphmem raises."""


class ConfigurationError(GraphmemError):
    """A setting is missing or has a bad value; the message names the setting."""


class DataNotFoundError(ConfigurationError):
    """A dataset file or folder is missing; the message names the path, where the data comes
    from, and how to point graphmem at it (``--data DIR`` / ``GRAPHMEM_DATA``)."""


class InvalidInputError(GraphmemError, ValueError):
    """Bad input to a public entry point; the message names the offending value."""


class EmptyTextError(InvalidInputError):
    """Text that is empty or only whitespace."""


class EmbeddingDimensionError(InvalidInputError):
    """An embedding or index dimension that is invalid or does not match."""


class TrajectoryError(InvalidInputError):
    """A trajectory that cannot be used (no actions, missing fields, wrong types)."""


class InputFormatError(InvalidInputError):
    """A malformed input file or line; the message names the file and the line number."""


class FormatVersionError(InputFormatError):
    """A namespace export written in a newer format version than this graphmem reads; the
    message names the file, both versions and what to do."""


class NamespaceNotEmptyError(InvalidInputError):
    """An import into a namespace that already holds nodes and is not resuming the interrupted
    import of the same file; the message names the namespace and what to do."""


class QueryRegistryError(GraphmemError):
    """A Cypher file whose header does not match its body; the message names the file."""


class UnknownQueryError(GraphmemError, KeyError):
    """A query name that the registry does not hold."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class MigrationError(GraphmemError):
    """A migration could not be applied, or an applied migration's file has changed."""


class MigrationLockedError(MigrationError):
    """Another process holds the migration lock."""


class ControllerError(GraphmemError):
    """An LLM controller or extractor returned invalid output after its retry."""


class LauncherError(GraphmemError):
    """The local Neo4j launcher could not be built, started or stopped."""


class DatabaseError(GraphmemError):
    """A Neo4j error, translated; ``__cause__`` is the driver's exception."""


class PartialWriteError(DatabaseError):
    """A multi-memory write failed in one memory after the memories before it committed.

    Input is validated for every memory before the first write, so only the database (or the
    process) can fail here. Re-sending :attr:`messages` with the same ``conversation_id`` /
    ``session_id`` completes the write: each memory skips the message ids it already holds.

    Attributes:
        stored: memories that hold the messages (committed before the failure).
        missing: memories that do not (the failed one first, then those not tried).
        failed: the memory whose write failed.
        messages: the messages with their final ids and timestamps (``graphmem.agent.Message``
            objects), to pass back to ``GraphMemory.add`` (empty for a feedback).
        conversation_id, session_id: where they were written (None for a feedback).
        trajectory: for ``GraphMemory.feedback`` whose insight part committed and whose
            experience write failed, the built experience ``Trajectory``:
            ``mem.experience.ingest([err.trajectory])`` completes it (None otherwise).

    ``__cause__`` is the original error.
    """

    def __init__(self, message: str, *, stored: list[str], missing: list[str],
                 messages: list | tuple = (), conversation_id: str | None = None,
                 session_id: str | None = None, trajectory: object = None) -> None:
        super().__init__(message)
        self.stored = list(stored)
        self.missing = list(missing)
        self.failed = self.missing[0] if self.missing else None
        self.messages = list(messages)
        self.conversation_id = conversation_id
        self.session_id = session_id
        self.trajectory = trajectory


class IncompleteForgetError(DatabaseError):
    """A forget deleted the selected messages' conversations from a memory but failed while
    rebuilding the messages that remain (``GraphMemory.forget``). The forgotten messages are
    gone; the remaining ones of :attr:`pending` are not stored again yet.

    Attributes:
        pending: ``[(memory name, Conversation)]`` still to rebuild, the failed one first:
            ``mem.memory(name).ingest([conversation])`` for each completes the forget
            (:meth:`complete` does exactly that).

    ``__cause__`` is the original error.
    """

    def __init__(self, message: str, *, pending: list | tuple = ()) -> None:
        super().__init__(message)
        self.pending = list(pending)

    def complete(self, mem: object) -> None:
        """Rebuild every pending conversation into its memory of ``mem`` (a ``GraphMemory``
        of the same namespace); raises that memory's errors."""
        for name, conversation in self.pending:
            mem.memory(name).ingest([conversation])  # type: ignore[attr-defined]


class ServiceUnavailableError(DatabaseError):
    """The Neo4j server cannot be reached."""


class AuthenticationError(DatabaseError):
    """The Neo4j server refused the credentials."""


class ConstraintViolationError(DatabaseError):
    """A write violated a constraint (e.g. a duplicate id)."""


class QueryError(DatabaseError):
    """The server rejected a query."""


def translate_neo4j_error(
    exc: Exception,
    query_name: str | None = None,
    *,
    username: str | None = None,
    uri: str | None = None,
) -> GraphmemError:
    """Map a neo4j driver exception to graphmem's tree; the caller raises it ``from exc``.

    Args:
        exc: the exception raised by the neo4j driver.
        query_name: the registry name of the query that failed, named in the message.
        username, uri: who connected where; named in an :class:`AuthenticationError`, whose
            message always says to check ``NEO4J_USERNAME`` / ``NEO4J_PASSWORD``.

    Returns:
        A :class:`DatabaseError` subclass instance (never raises itself).
    """
    from neo4j import exceptions as ne

    where = f" in query {query_name!r}" if query_name else ""
    message = f"{type(exc).__name__}{where}: {exc}"
    if isinstance(exc, ne.AuthError):
        who = f" for user {username!r}" if username is not None else ""
        at = f" at {uri}" if uri else ""
        return AuthenticationError(
            f"Neo4j refused the credentials{who}{at}{where}: check NEO4J_USERNAME / "
            f"NEO4J_PASSWORD ({type(exc).__name__}: {getattr(exc, 'message', None) or exc})"
        )
    if isinstance(exc, (ne.ServiceUnavailable, ne.SessionExpired)):
        return ServiceUnavailableError(message)
    if isinstance(exc, ne.ConstraintError):
        return ConstraintViolationError(message)
    if isinstance(exc, (ne.CypherSyntaxError, ne.CypherTypeError, ne.ClientError)):
        return QueryError(message)
    return DatabaseError(message)

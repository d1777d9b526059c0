"""Which Neo4j the local launcher runs, and which JDK builds and runs it.

``GRAPHMEM_NEO4J_VERSION`` selects the line: ``5.26`` (default, the LTS, Java 17+), ``calendar``
(the pinned current calendar release, Java 21+), or an exact ``5.26.N`` / ``YYYY.MM.N``.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from graphmem.errors import ConfigurationError, LauncherError

log = logging.getLogger(__name__)

LTS_VERSION = "5.26.31"  # newest 5.26 patch that resolves from Maven Central
CALENDAR_VERSION = "2026.09.0"  # newest calendar release that resolves from Maven Central
ALIASES = {"5.26": LTS_VERSION, "lts": LTS_VERSION, "calendar": CALENDAR_VERSION}
_EXACT = re.compile(r"^(5\.26\.\d+|20\d\d\.\d\d\.\d+)$")
JVM_ROOT = Path("/usr/lib/jvm")


@dataclass(frozen=True)
class Neo4jVersion:
    """A resolved Neo4j version: the Maven version, the Java it needs and the compile release."""

    version: str
    min_java: int

    @property
    def is_calendar(self) -> bool:
        """True for the 2025.x/2026.x calendar releases (Java 21+, Cypher 25 default)."""
        return not self.version.startswith("5.")


def resolve_version(name: str) -> Neo4jVersion:
    """Turn a ``GRAPHMEM_NEO4J_VERSION`` value into a Maven version.

    Raises:
        ConfigurationError: not ``5.26``, ``calendar``, ``5.26.N`` or ``YYYY.MM.N`` (names the
            variable).
    """
    version = ALIASES.get(name.strip().lower(), name.strip())
    if not _EXACT.match(version):
        raise ConfigurationError(
            f"GRAPHMEM_NEO4J_VERSION={name!r} is not supported: use '5.26' (default), 'calendar' "
            f"({CALENDAR_VERSION}), an exact 5.26.N or a calendar version YYYY.MM.N"
        )
    return Neo4jVersion(version, 17 if version.startswith("5.") else 21)


def java_feature_version(java_home: Path) -> int | None:
    """The feature version (17, 21, 25, ...) from ``<java_home>/release``, or None if unreadable."""
    try:
        text = (java_home / "release").read_text(errors="replace")
    except OSError:
        return None
    match = re.search(r'^JAVA_VERSION="?(\d+)(?:\.(\d+))?', text, re.MULTILINE)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 and match.group(2) else major


def find_jdk(min_version: int, java_home: str | None = None, root: Path = JVM_ROOT) -> Path | None:
    """A JDK home with ``bin/java``, ``bin/javac`` and version ≥ ``min_version``.

    Tries ``java_home`` (default: ``$JAVA_HOME``), then the JDK of ``javac`` on PATH, then every
    folder under ``root`` (newest first).

    Returns:
        The JDK home, or None when none is new enough.
    """
    candidates: list[Path] = []
    env_home = java_home if java_home is not None else os.environ.get("JAVA_HOME")
    if env_home:
        candidates.append(Path(env_home))
    javac = shutil.which("javac")
    if javac:
        candidates.append(Path(javac).resolve().parent.parent)
    if root.is_dir():
        found = [(java_feature_version(p) or 0, p) for p in root.iterdir() if p.is_dir()]
        candidates.extend(p for _, p in sorted(found, key=lambda t: (-t[0], t[1].name)))
    for home in candidates:
        version = java_feature_version(home)
        if version is not None and version >= min_version and (home / "bin" / "javac").exists():
            return home
    return None


def require_jdk(version: Neo4jVersion) -> Path:
    """The JDK home to build and run ``version`` with.

    Raises:
        LauncherError: no JDK new enough (names JAVA_HOME and the version needed).
    """
    home = find_jdk(version.min_java)
    if home is None:
        raise LauncherError(
            f"Neo4j {version.version} needs a JDK {version.min_java} or newer: set JAVA_HOME to "
            f"one (none found in $JAVA_HOME, on PATH or under {JVM_ROOT}), or set "
            f"GRAPHMEM_NEO4J_VERSION=5.26"
        )
    log.debug("Neo4j %s: using the JDK in %s", version.version, home)
    return home

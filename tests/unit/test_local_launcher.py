"""The local launcher's decisions that need no database: port picking (with real sockets taking
ports), pinned-port failures, version names, JDK discovery from ``release`` files, settings."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import neo4j.exceptions
import pytest

from graphmem import neo4j_local
from graphmem.config import GraphmemSettings
from graphmem.errors import AuthenticationError, ConfigurationError, LauncherError
from graphmem.errors import translate_neo4j_error
from graphmem.local.ports import choose_ports, free_port, port_holder, port_taken
from graphmem.local.versions import (
    CALENDAR_VERSION, LTS_VERSION, find_jdk, java_feature_version, resolve_version,
)


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port on 127.0.0.1 held by a listening socket of this test process."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def test_taken_default_port_moves_to_a_free_one(taken_port: int) -> None:
    assert port_taken(taken_port)
    bolt, browser = choose_ports(taken_port, 0, bolt_pinned=False, browser_pinned=False)
    assert bolt != taken_port and bolt > taken_port and not port_taken(bolt)
    assert browser == 0


def test_browser_port_never_equals_the_bolt_port(taken_port: int) -> None:
    bolt, browser = choose_ports(taken_port, taken_port + 1, False, False)
    assert bolt != taken_port and browser not in (taken_port, bolt)


def test_free_ports_are_kept() -> None:
    a, b = free_port(), free_port()
    while b == a:
        b = free_port()
    assert choose_ports(a, b, True, True) == (a, b)


def test_pinned_bolt_port_fails_fast_naming_the_variables(taken_port: int, tmp_path: Path) -> None:
    began = time.monotonic()
    with pytest.raises(LauncherError) as info:
        neo4j_local.start(tmp_path, bolt_port=taken_port, browser_port=0, bolt_pinned=True)
    elapsed = time.monotonic() - began
    message = str(info.value)
    assert elapsed < 15, f"pinned-port failure took {elapsed:.1f} s"
    assert f"Bolt port {taken_port}" in message
    for name in ("GRAPHMEM_BOLT_PORT", "GRAPHMEM_BROWSER_PORT", "NEO4J_URI"):
        assert name in message
    assert f"pid {os.getpid()}" in message  # the holder, found through /proc
    assert not (tmp_path / "launcher").exists()  # nothing was built


def test_pinned_browser_port_fails_fast(taken_port: int, tmp_path: Path) -> None:
    with pytest.raises(LauncherError, match=f"Browser port {taken_port} .*GRAPHMEM_BROWSER_PORT"):
        neo4j_local.start(tmp_path, bolt_port=free_port(), browser_port=taken_port,
                          browser_pinned=True)


def test_port_holder_names_the_process(taken_port: int) -> None:
    assert f"pid {os.getpid()}" in port_holder(taken_port)
    assert port_holder(free_port()) == "another process"


def test_version_names() -> None:
    assert resolve_version("5.26").version == LTS_VERSION and resolve_version("5.26").min_java == 17
    calendar = resolve_version("calendar")
    assert calendar.version == CALENDAR_VERSION and calendar.min_java == 21 and calendar.is_calendar
    assert resolve_version("2025.12.1").min_java == 21
    assert resolve_version("5.26.29").version == "5.26.29"
    with pytest.raises(ConfigurationError, match="GRAPHMEM_NEO4J_VERSION"):
        resolve_version("4.4")


def _fake_jdk(root: Path, name: str, version: str) -> Path:
    home = root / name
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "javac").write_text("")
    (home / "release").write_text(f'IMPLEMENTOR="x"\nJAVA_VERSION="{version}"\n')
    return home


def test_jdk_discovery_reads_release_files(tmp_path: Path) -> None:
    old = _fake_jdk(tmp_path, "jdk-17", "17.0.15")
    new = _fake_jdk(tmp_path, "jdk-25", "25.0.3")
    assert java_feature_version(old) == 17 and java_feature_version(new) == 25
    assert java_feature_version(_fake_jdk(tmp_path, "jdk-8", "1.8.0_392")) == 8
    assert java_feature_version(tmp_path / "missing") is None
    # JAVA_HOME new enough wins; too old, the scan finds the newer one
    assert find_jdk(17, java_home=str(old), root=tmp_path) == old
    assert find_jdk(21, java_home=str(old), root=tmp_path) == new
    assert find_jdk(26, java_home=str(old), root=tmp_path) is None


def test_pinned_ports_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHMEM_BOLT_PORT", raising=False)
    monkeypatch.delenv("GRAPHMEM_BROWSER_PORT", raising=False)
    assert GraphmemSettings().pinned_ports == (False, False)
    monkeypatch.setenv("GRAPHMEM_BOLT_PORT", "7700")
    settings = GraphmemSettings()
    assert settings.pinned_ports == (True, False) and settings.bolt_port == 7700
    monkeypatch.setenv("GRAPHMEM_NEO4J_VERSION", "calendar")
    monkeypatch.setenv("GRAPHMEM_LOCAL_AUTH", "1")
    settings = GraphmemSettings()
    assert settings.neo4j_version == "calendar" and settings.local_auth is True
    monkeypatch.setenv("GRAPHMEM_NEO4J_VERSION", "3.5")
    with pytest.raises(Exception, match="GRAPHMEM_NEO4J_VERSION"):
        GraphmemSettings()


def test_auth_error_names_user_uri_and_variables() -> None:
    exc = neo4j.exceptions.AuthError("The client is unauthorized due to authentication failure.")
    error = translate_neo4j_error(exc, username="alice", uri="bolt://db.example:7687")
    assert isinstance(error, AuthenticationError)
    assert str(error).startswith(
        "Neo4j refused the credentials for user 'alice' at bolt://db.example:7687: check "
        "NEO4J_USERNAME / NEO4J_PASSWORD")


def test_exit_report_prefers_the_failure_line(tmp_path: Path) -> None:
    log = tmp_path / "neo4j.log"
    log.write_text("starting\n"
                   "GRAPHMEM_NEO4J_FAILED Bolt port 7687 on 127.0.0.1 is already in use\n")
    message = neo4j_local._failure(2, log, 7687, 0)
    assert message.startswith("local Neo4j could not start: Bolt port 7687")
    assert "GRAPHMEM_BOLT_PORT" in message and "NEO4J_URI" in message
    log.write_text("Exception in thread main\njava.lang.IllegalStateException: boom\n"
                   "\tat a.b.C.d(C.java:1)\nCaused by: x\n\tat e.f.G.h(G.java:2)\n")
    message = neo4j_local._failure(1, log, 7000, 7001)
    assert "status 1" in message and "java.lang.IllegalStateException: boom" in message

"""The local launcher: Neo4j Community in-process, built from Maven Central jars.

``start`` copies the launcher's Maven project (``docker/`` in a checkout) into
``<home>/launcher/<version>``, builds it on first use (``mvn package`` + ``copy-dependencies``,
with a JDK new enough for that version), checks both loopback ports, runs it with the server's
JVM flags, waits until Bolt answers and records pid, ports, version and auth in
``<home>/neo4j.pid`` (JSON), which ``status`` and every later command read. The store lives in
``<home>/neo4j`` (5.26) or ``<home>/neo4j-calendar`` (2025.x/2026.x) and persists across restarts.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from graphmem.errors import ConfigurationError, LauncherError
from graphmem.local.ports import choose_ports, free_port, port_answers
from graphmem.local.sizing import machine_memory_mb, size_memory, store_mb
from graphmem.local.versions import Neo4jVersion, require_jdk, resolve_version

__all__ = ["LocalServer", "bolt_answers", "build", "free_port", "start", "status", "stop"]

log = logging.getLogger(__name__)

READY_MARKER = "GRAPHMEM_NEO4J_READY"
FAILED_MARKER = "GRAPHMEM_NEO4J_FAILED"
PASSWORD_ENV = "GRAPHMEM_LAUNCHER_PASSWORD"  # how the password reaches the JVM (not its argv)
MAIN_CLASS = "io.graphmem.launcher.Launcher"
JVM_FLAGS = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-XX:+ExitOnOutOfMemoryError",
)


@dataclass(frozen=True)
class LocalServer:
    """A running local Neo4j, as recorded in ``<home>/neo4j.pid``.

    Ports are the ones actually chosen (a taken default moves to the next free port).
    """

    pid: int
    bolt_uri: str
    browser_url: str | None
    home: str
    bolt_port: int = 0
    browser_port: int = 0
    version: str = ""
    auth: bool = False
    heap_mb: int = 0
    pagecache_mb: int = 0
    #: where the heap and page-cache sizes came from (:mod:`graphmem.local.sizing`)
    memory: str = ""

    @property
    def browser_link(self) -> str | None:
        """The Browser URL with the Bolt URI (and no-auth preselected when auth is off)."""
        if not self.browser_url:
            return None
        link = f"{self.browser_url}?dbms={self.bolt_uri}"
        return link if self.auth else f"{link}&preselectAuthMethod=NO_AUTH"


def _launcher_source() -> Path:
    from graphmem.resources import resource_dir

    try:
        return resource_dir("launcher")
    except Exception:
        checkout = Path(__file__).resolve().parent.parent / "docker"
        if (checkout / "pom.xml").is_file():
            return checkout
        raise LauncherError("launcher sources (pom.xml, src/) not found") from None


def _source_digest(root: Path, version: str) -> str:
    digest = hashlib.sha256(version.encode())
    for path in sorted([root / "pom.xml", *sorted((root / "src").rglob("*.java"))]):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _java_env(jdk: Path) -> dict[str, str]:
    return {**os.environ, "JAVA_HOME": str(jdk),
            "PATH": f"{jdk / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}


def build(home: Path, quiet: bool = True, version: str | Neo4jVersion = "5.26") -> Path:
    """Build the launcher for ``version`` under ``<home>/launcher/<version>`` unless an
    up-to-date build exists (each version has its own folder, so several coexist).

    Returns:
        The build folder (``target/classes`` and ``target/lib`` inside).
    Raises:
        ConfigurationError: unknown ``version``.
        LauncherError: Maven or a JDK new enough is missing, or the build failed (with Maven's
            output tail).
    """
    neo = version if isinstance(version, Neo4jVersion) else resolve_version(version)
    source = _launcher_source()
    target = home / "launcher" / neo.version
    stamp = target / ".source-sha256"
    digest = _source_digest(source, neo.version)
    if stamp.is_file() and stamp.read_text() == digest and (target / "target" / "lib").is_dir():
        return target
    if shutil.which("mvn") is None:
        raise LauncherError("the local launcher needs Maven (mvn) on PATH and a JDK 17+")
    jdk = require_jdk(neo)
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copy2(source / "pom.xml", target / "pom.xml")
    shutil.copytree(source / "src", target / "src")
    cmd = ["mvn", "-B", "-q" if quiet else "-ntp", "package", "-DskipTests",
           f"-Dneo4j.version={neo.version}", f"-Dmaven.compiler.release={neo.min_java}"]
    log.info("building the launcher for Neo4j %s with the JDK in %s", neo.version, jdk)
    proc = subprocess.run(cmd, cwd=target, capture_output=True, text=True, env=_java_env(jdk))
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-3000:]
        raise LauncherError(f"launcher build failed ({' '.join(cmd)}):\n{tail}")
    stamp.write_text(digest)
    return target


def bolt_answers(port: int, host: str = "127.0.0.1", timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections on ``host:port`` (``timeout`` in seconds)."""
    return port_answers(port, host, timeout)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child counts as dead
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return True


def status(home: Path) -> LocalServer | None:
    """The server recorded in ``<home>/neo4j.pid`` (with the ports it was started on) if its
    process lives and Bolt answers; else None."""
    pid_file = Path(home) / "neo4j.pid"
    if not pid_file.is_file():
        return None
    try:
        info = json.loads(pid_file.read_text())
        server = LocalServer(**info)
    except (ValueError, TypeError):
        return None
    port = int(server.bolt_uri.rsplit(":", 1)[1])
    if _pid_alive(server.pid) and bolt_answers(port):
        return server
    return None


def start(
    home: Path,
    bolt_port: int = 7687,
    browser_port: int = 7474,
    pagecache_mb: int | None = None,
    heap_mb: int | None = None,
    timeout: float = 180.0,
    *,
    bolt_pinned: bool = False,
    browser_pinned: bool = False,
    version: str = "5.26",
    auth: bool = False,
    password: str | None = None,
) -> LocalServer:
    """Start the local Neo4j (building the launcher on first use); return once Bolt answers.

    Idempotent: a server already running for ``home`` is returned as is (its recorded ports,
    version and auth win). Both ports are checked before anything is built or started: a taken
    port that is not pinned moves to the next free one; a pinned one fails at once.

    Args:
        home: folder for the launcher builds, the store, ``neo4j.log``, ``neo4j.pid``.
        bolt_port: wanted Bolt port on 127.0.0.1.
        browser_port: wanted Neo4j Browser port on 127.0.0.1 (0: no Browser).
        pagecache_mb: page cache cap (MiB); None: sized from the RAM and the store
            (:func:`graphmem.local.sizing.size_memory`).
        heap_mb: JVM heap cap (MiB); None: sized from the RAM.
        timeout: seconds to wait for the ready line.
        bolt_pinned / browser_pinned: the user set the port explicitly (no fallback).
        version: ``5.26`` (default), ``calendar`` or an exact version (see
            :func:`graphmem.local.versions.resolve_version`).
        auth: run with authentication on; user ``neo4j`` gets ``password`` on the store's first
            start (later starts keep the store's password).
        password: the password for ``auth`` (8 characters or more).
    Raises:
        ConfigurationError: unknown ``version``, or ``auth`` without a password of 8+ characters.
        LauncherError: a pinned port is taken, the build failed, or the server exited (with its
            failure line) or was not ready within ``timeout`` (with the log tail).
    """
    home = Path(home).resolve()
    home.mkdir(parents=True, exist_ok=True)
    running = status(home)
    if running is not None:
        wanted = resolve_version(version).version
        if running.auth != auth or (running.version and running.version != wanted):
            log.warning("reusing the running local Neo4j %s (auth=%s) in %s", running.version,
                        running.auth, home)
        return running
    neo = resolve_version(version)
    if auth and (not password or len(password) < 8):
        raise ConfigurationError(
            "GRAPHMEM_LOCAL_AUTH=1 needs NEO4J_PASSWORD of 8 characters or more "
            "(Neo4j's minimum password length)")
    bolt_port, browser_port = choose_ports(bolt_port, browser_port, bolt_pinned, browser_pinned)
    build_dir = build(home, version=neo)
    java = str(require_jdk(neo) / "bin" / "java")
    log_path = home / "neo4j.log"
    target = build_dir / "target"
    classpath = f"{target / 'classes'}{os.pathsep}{target / 'lib' / '*'}"
    store = home / ("neo4j-calendar" if neo.is_calendar else "neo4j")
    sizing = size_memory(machine_memory_mb(), store_mb(store), heap_mb=heap_mb,
                         pagecache_mb=pagecache_mb)
    heap_mb, pagecache_mb = sizing.heap_mb, sizing.pagecache_mb
    log.info("local Neo4j memory: %s", sizing.reason)
    cmd = [java, f"-Xmx{heap_mb}m", *JVM_FLAGS, "-cp", classpath, MAIN_CLASS,
           "--home", str(store), "--bolt-port", str(bolt_port),
           "--browser-port", str(browser_port), "--pagecache-mb", str(pagecache_mb),
           "--auth", "true" if auth else "false"]
    env = {**os.environ, PASSWORD_ENV: password or ""}
    began = time.monotonic()
    with open(log_path, "w") as log_file:
        proc = subprocess.Popen(
            cmd, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, env=env,
        )
    deadline = began + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LauncherError(_failure(proc.returncode, log_path, bolt_port, browser_port))
        if READY_MARKER in log_path.read_text(errors="replace") and bolt_answers(bolt_port):
            server = LocalServer(
                pid=proc.pid,
                bolt_uri=f"bolt://127.0.0.1:{bolt_port}",
                browser_url=f"http://127.0.0.1:{browser_port}/browser/" if browser_port else None,
                home=str(home), bolt_port=bolt_port, browser_port=browser_port,
                version=neo.version, auth=auth, heap_mb=heap_mb, pagecache_mb=pagecache_mb,
                memory=sizing.reason,
            )
            (home / "neo4j.pid").write_text(json.dumps(asdict(server)))
            log.info("local Neo4j %s ready on %s in %.1f s", neo.version, server.bolt_uri,
                     time.monotonic() - began)
            return server
        time.sleep(0.25)
    proc.terminate()
    raise LauncherError(f"local Neo4j not ready after {timeout:.0f} s:\n{_tail(log_path)}")


def _failure(returncode: int, log_path: Path, bolt_port: int, browser_port: int) -> str:
    """The message for a launcher that exited: its failure line, else the last meaningful line."""
    lines = [ln.strip() for ln in _tail(log_path, 20000).splitlines() if ln.strip()]
    failed = [ln for ln in lines if ln.startswith(FAILED_MARKER)]
    if failed:
        reason = failed[-1][len(FAILED_MARKER):].strip()
        if "already in use" in reason:
            reason += (" (taken after graphmem checked it). Set GRAPHMEM_BOLT_PORT / "
                       "GRAPHMEM_BROWSER_PORT to free ports, or NEO4J_URI to use a running server")
        return f"local Neo4j could not start: {reason}"
    meaningful = [ln for ln in lines if not ln.startswith(("at ", "...", "Caused by:"))]
    last = meaningful[-1] if meaningful else "(no output)"
    return (f"local Neo4j exited with status {returncode} (Bolt port {bolt_port}, Browser port "
            f"{browser_port}): {last}\nfull log: {log_path}")


def stop(home: Path, timeout: float = 60.0) -> bool:
    """Stop the server recorded for ``home`` (SIGTERM, then SIGKILL after ``timeout`` s).

    Returns:
        True if a server was stopped, False if none was running.
    """
    home = Path(home).resolve()
    pid_file = home / "neo4j.pid"
    if not pid_file.is_file():
        return False
    try:
        pid = int(json.loads(pid_file.read_text())["pid"])
    except (ValueError, KeyError, TypeError):
        pid_file.unlink()
        return False
    stopped = False
    if _pid_alive(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while _pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _pid_alive(pid):
            os.kill(pid, signal.SIGKILL)
        stopped = True
    pid_file.unlink(missing_ok=True)
    return stopped


def _tail(path: Path, chars: int = 3000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return ""

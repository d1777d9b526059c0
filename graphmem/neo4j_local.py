"""The local launcher: Neo4j 5.26 Community in-process, built from Maven Central jars.

``start`` copies the launcher's Maven project (``docker/`` in a checkout) into
``<home>/launcher``, builds it on first use (``mvn package`` + ``copy-dependencies``), runs it
with the server's JVM flags, waits until Bolt answers and records the pid in
``<home>/neo4j.pid`` (JSON). The store lives in ``<home>/neo4j`` and persists across restarts.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from graphmem.errors import LauncherError

READY_MARKER = "GRAPHMEM_NEO4J_READY"
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
    """A running local Neo4j: its pid, Bolt URI and Browser URL (or None)."""

    pid: int
    bolt_uri: str
    browser_url: str | None
    home: str


def _launcher_source() -> Path:
    from graphmem.resources import resource_dir

    try:
        return resource_dir("launcher")
    except Exception:
        checkout = Path(__file__).resolve().parent.parent / "docker"
        if (checkout / "pom.xml").is_file():
            return checkout
        raise LauncherError("launcher sources (pom.xml, src/) not found") from None


def _source_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted([root / "pom.xml", *sorted((root / "src").rglob("*.java"))]):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def build(home: Path, quiet: bool = True) -> Path:
    """Build the launcher under ``<home>/launcher`` unless an up-to-date build exists.

    Returns:
        The build folder (``target/classes`` and ``target/lib`` inside).
    Raises:
        LauncherError: Maven or Java is missing, or the build failed (with Maven's output tail).
    """
    source = _launcher_source()
    target = home / "launcher"
    stamp = target / ".source-sha256"
    digest = _source_digest(source)
    if stamp.is_file() and stamp.read_text() == digest and (target / "target" / "lib").is_dir():
        return target
    if shutil.which("mvn") is None or shutil.which("java") is None:
        raise LauncherError("the local launcher needs Java 17+ and Maven (mvn) on PATH")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copy2(source / "pom.xml", target / "pom.xml")
    shutil.copytree(source / "src", target / "src")
    cmd = ["mvn", "-B", "-q" if quiet else "-ntp", "package", "-DskipTests"]
    proc = subprocess.run(cmd, cwd=target, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-3000:]
        raise LauncherError(f"launcher build failed ({' '.join(cmd)}):\n{tail}")
    stamp.write_text(digest)
    return target


def bolt_answers(port: int, host: str = "127.0.0.1", timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
    """The server recorded in ``<home>/neo4j.pid`` if its process lives and Bolt answers."""
    pid_file = home / "neo4j.pid"
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
    pagecache_mb: int = 256,
    heap_mb: int = 1024,
    timeout: float = 180.0,
) -> LocalServer:
    """Start the local Neo4j (building the launcher on first use); return once Bolt answers.

    Idempotent: a server already running for ``home`` is returned as is.

    Args:
        home: folder for the launcher build, the store (``neo4j/``), ``neo4j.log``, ``neo4j.pid``.
        bolt_port: Bolt port on 127.0.0.1.
        browser_port: Neo4j Browser port on 127.0.0.1 (0: no Browser).
        pagecache_mb: page cache cap (MiB).
        heap_mb: JVM heap cap (MiB).
        timeout: seconds to wait for the ready line.
    Raises:
        LauncherError: the port is taken by another process, the build failed, or the server
            exited or did not become ready within ``timeout`` (with the log tail).
    """
    home = Path(home).resolve()
    home.mkdir(parents=True, exist_ok=True)
    running = status(home)
    if running is not None:
        return running
    if bolt_answers(bolt_port):
        raise LauncherError(f"port {bolt_port} on 127.0.0.1 is already in use by another process")
    build_dir = build(home)
    log_path = home / "neo4j.log"
    java = shutil.which("java") or "java"
    classpath = f"{build_dir / 'target' / 'classes'}{os.pathsep}{build_dir / 'target' / 'lib' / '*'}"
    cmd = [
        java,
        f"-Xmx{heap_mb}m",
        *JVM_FLAGS,
        "-cp",
        classpath,
        MAIN_CLASS,
        "--home",
        str(home / "neo4j"),
        "--bolt-port",
        str(bolt_port),
        "--browser-port",
        str(browser_port),
        "--pagecache-mb",
        str(pagecache_mb),
    ]
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LauncherError(f"local Neo4j exited with {proc.returncode}:\n{_tail(log_path)}")
        if READY_MARKER in log_path.read_text(errors="replace") and bolt_answers(bolt_port):
            server = LocalServer(
                pid=proc.pid,
                bolt_uri=f"bolt://127.0.0.1:{bolt_port}",
                browser_url=f"http://127.0.0.1:{browser_port}/browser/" if browser_port else None,
                home=str(home),
            )
            (home / "neo4j.pid").write_text(json.dumps(asdict(server)))
            return server
        time.sleep(0.25)
    proc.terminate()
    raise LauncherError(f"local Neo4j not ready after {timeout:.0f} s:\n{_tail(log_path)}")


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

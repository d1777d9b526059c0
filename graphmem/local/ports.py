"""Loopback port checks for the local launcher: is a port taken, by whom, and which is next free.

A port counts as taken when a TCP bind on ``127.0.0.1`` fails or something already accepts
connections there (a listener on ``0.0.0.0``/``::`` included). Who holds it is found best-effort
from ``/proc/net/tcp{,6}`` and ``/proc/<pid>/cmdline`` (Linux; elsewhere "another process").
"""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path

from graphmem.errors import LauncherError

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
SEARCH_SPAN = 100  # ports tried above a taken default before giving up
_LISTEN = "0A"  # TCP state LISTEN in /proc/net/tcp


def port_answers(port: int, host: str = HOST, timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections on ``host:port`` (``timeout`` in seconds)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def port_taken(port: int) -> bool:
    """True when ``127.0.0.1:port`` cannot be bound now or something already listens there."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return True
    return port_answers(port, timeout=0.2)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that the kernel reports free right now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _listening_inodes(port: int) -> set[str]:
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or fields[3] != _LISTEN:
                continue
            if int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes


def port_holder(port: int) -> str:
    """Best-effort description of the process listening on ``port``.

    Returns:
        e.g. ``"a Neo4j server (pid 2978, java ... io.graphmem.launcher.Launcher ...)"``, or
        ``"another process"`` when it cannot be told (no /proc, no permission).
    """
    inodes = _listening_inodes(port)
    if not inodes:
        return "another process"
    targets = {f"socket:[{inode}]" for inode in inodes}
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") not in targets:
                    continue
            except OSError:
                continue
            return _describe(int(pid))
    return "another process"


def _describe(pid: int) -> str:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return f"another process (pid {pid})"
    words = [a.decode(errors="replace") for a in argv if a]
    if not words:
        return f"another process (pid {pid})"
    program = os.path.basename(words[0])
    joined = " ".join(words)
    if "io.graphmem.launcher.Launcher" in joined:
        return f"graphmem's local Neo4j ({program}, pid {pid})"
    if "neo4j" in joined.lower():
        return f"a Neo4j server ({program}, pid {pid})"
    return f"'{program}' (pid {pid})"


def choose_ports(
    bolt: int, browser: int, bolt_pinned: bool, browser_pinned: bool
) -> tuple[int, int]:
    """The Bolt and Browser ports to start on, checked now on 127.0.0.1.

    A taken port that the user pinned (set explicitly) fails at once; a taken default moves to
    the next free port above it (at most ``SEARCH_SPAN`` tries), never equal to the other port.

    Args:
        bolt: wanted Bolt port.
        browser: wanted Browser port (0: no Browser, not checked).
        bolt_pinned / browser_pinned: the user set this port explicitly.
    Returns:
        ``(bolt_port, browser_port)``.
    Raises:
        LauncherError: a pinned port is taken (names the port, its holder when known,
            ``GRAPHMEM_BOLT_PORT`` / ``GRAPHMEM_BROWSER_PORT`` and ``NEO4J_URI``), or no free port
            was found in the search span.
    """
    chosen_bolt = _choose(bolt, bolt_pinned, "Bolt", "GRAPHMEM_BOLT_PORT", avoid=set())
    chosen_browser = browser
    if browser:
        chosen_browser = _choose(browser, browser_pinned, "Browser", "GRAPHMEM_BROWSER_PORT",
                                 avoid={chosen_bolt})
    return chosen_bolt, chosen_browser


def _choose(port: int, pinned: bool, kind: str, variable: str, avoid: set[int]) -> int:
    if port not in avoid and not port_taken(port):
        return port
    if pinned:
        holder = port_holder(port) if port not in avoid else "the Bolt port you chose"
        raise LauncherError(
            f"{kind} port {port} on 127.0.0.1 is already in use by {holder}. Set "
            f"GRAPHMEM_BOLT_PORT / GRAPHMEM_BROWSER_PORT to free ports (or unset them to let "
            f"graphmem pick), or set NEO4J_URI to use the server that is already running."
        )
    for candidate in range(port + 1, min(port + 1 + SEARCH_SPAN, 65536)):
        if candidate not in avoid and not port_taken(candidate):
            log.info("%s port %d is in use by %s; using %d", kind, port, port_holder(port),
                     candidate)
            return candidate
    raise LauncherError(
        f"no free {kind} port in {port}..{port + SEARCH_SPAN} on 127.0.0.1; set {variable} "
        f"or NEO4J_URI"
    )

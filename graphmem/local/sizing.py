"""How much memory the local Neo4j gets when ``GRAPHMEM_HEAP_MB`` / ``GRAPHMEM_PAGECACHE_MB`` are
not set: sized from the machine's RAM and the size of the store, in the spirit of Neo4j's
``neo4j-admin server memory-recommendation`` (heap for transactions and query state, page cache
for the store files), but for a server that shares the machine with the application, its
embedding model and the operating system.

- heap: 1/16 of the RAM, between 512 MiB and 4 GiB (a 24 GiB machine: 1,536 MiB);
- page cache: the store's size plus a fifth (room to grow) plus 64 MiB, between 256 MiB and 1/8
  of the RAM (a 24 GiB machine: at most 3 GiB);
- both rounded up to a multiple of 64 MiB.

:func:`size_memory` is pure; :func:`machine_memory_mb` and :func:`store_mb` read the system.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

#: Heap bounds (MiB) and its share of the RAM.
HEAP_MIN_MB, HEAP_MAX_MB, HEAP_SHARE = 512, 4096, 1 / 16
#: Page-cache floor (MiB), its ceiling as a share of the RAM, and the growth room over the store.
PAGECACHE_MIN_MB, PAGECACHE_SHARE, STORE_GROWTH, PAGECACHE_SLACK_MB = 256, 1 / 8, 1.2, 64
#: What sizes are rounded up to (MiB).
GRAIN_MB = 64
#: Assumed RAM when the system does not say (MiB).
UNKNOWN_RAM_MB = 4096


@dataclass(frozen=True)
class MemorySizing:
    """The memory given to the local Neo4j.

    Attributes:
        heap_mb: JVM heap cap (MiB). pagecache_mb: page cache cap (MiB).
        reason: one line saying where each number came from (printed by ``graphmem neo4j
            start`` and recorded in the pid file).
    """

    heap_mb: int
    pagecache_mb: int
    reason: str


def _grain(mb: float) -> int:
    return int(math.ceil(mb / GRAIN_MB) * GRAIN_MB)


def size_memory(ram_mb: int, store_size_mb: float, *, heap_mb: int | None = None,
                pagecache_mb: int | None = None) -> MemorySizing:
    """Heap and page cache for a local Neo4j on a machine with ``ram_mb`` MiB of RAM and a store
    of ``store_size_mb`` MiB; an explicit ``heap_mb`` / ``pagecache_mb`` wins (the user's
    setting).

    Returns:
        :class:`MemorySizing` (MiB), ``reason`` naming the rule or the setting of each.
    Raises:
        ValueError: ``ram_mb`` < 1 or ``store_size_mb`` < 0.
    """
    if ram_mb < 1 or store_size_mb < 0:
        raise ValueError(f"RAM must be positive and the store size not negative, got "
                         f"{ram_mb!r} MiB and {store_size_mb!r} MiB")
    parts = []
    if heap_mb is None:
        heap_mb = _grain(min(HEAP_MAX_MB, max(HEAP_MIN_MB, ram_mb * HEAP_SHARE)))
        parts.append(f"heap {heap_mb} MiB (1/16 of {ram_mb / 1024:.1f} GiB RAM, "
                     f"{HEAP_MIN_MB}..{HEAP_MAX_MB} MiB)")
    else:
        parts.append(f"heap {heap_mb} MiB (GRAPHMEM_HEAP_MB)")
    if pagecache_mb is None:
        ceiling = max(PAGECACHE_MIN_MB, ram_mb * PAGECACHE_SHARE)
        wanted = store_size_mb * STORE_GROWTH + PAGECACHE_SLACK_MB
        pagecache_mb = _grain(min(ceiling, max(PAGECACHE_MIN_MB, wanted)))
        parts.append(f"page cache {pagecache_mb} MiB (a {store_size_mb:.0f} MiB store + 20%, "
                     f"at least {PAGECACHE_MIN_MB} MiB, at most 1/8 of the RAM)")
    else:
        parts.append(f"page cache {pagecache_mb} MiB (GRAPHMEM_PAGECACHE_MB)")
    return MemorySizing(heap_mb, pagecache_mb, "; ".join(parts))


def machine_memory_mb() -> int:
    """Physical RAM of this machine in MiB (``sysconf``); :data:`UNKNOWN_RAM_MB` when the
    system does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20)
    except (ValueError, OSError, AttributeError):
        return UNKNOWN_RAM_MB


def store_mb(store: Path) -> float:
    """Size of the files under ``store`` in MiB (0 for a store not created yet)."""
    total = 0
    for path in Path(store).rglob("*"):
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total / 2**20


__all__ = ["MemorySizing", "machine_memory_mb", "size_memory", "store_mb"]

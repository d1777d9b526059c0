"""The local Neo4j's heap and page cache, sized from the RAM and the store when not set
(graphmem.local.sizing): the rule at the bounds, explicit settings win, and the reason says
where each number came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.local.sizing import machine_memory_mb, size_memory, store_mb


@pytest.mark.parametrize("ram_mb,store,heap,cache", [
    (24 * 1024, 10, 1536, 256),          # this kind of machine, a small store
    (24 * 1024, 2000, 1536, 2496),       # a 2 GB store: its size + 20% + 64 MiB, rounded to 64
    (24 * 1024, 50_000, 1536, 3072),     # a large store: at most 1/8 of the RAM
    (4 * 1024, 10, 512, 256),             # a small machine: the floors
    (256 * 1024, 10, 4096, 256),         # a large machine: the heap's ceiling
])
def test_the_rule(ram_mb: int, store: float, heap: int, cache: int) -> None:
    sizing = size_memory(ram_mb, store)
    assert (sizing.heap_mb, sizing.pagecache_mb) == (heap, cache)
    assert f"heap {heap} MiB (1/16 of" in sizing.reason
    assert f"page cache {cache} MiB (a {store:.0f} MiB store" in sizing.reason


def test_explicit_settings_win() -> None:
    sizing = size_memory(24 * 1024, 5000, heap_mb=700, pagecache_mb=300)
    assert (sizing.heap_mb, sizing.pagecache_mb) == (700, 300)
    assert "GRAPHMEM_HEAP_MB" in sizing.reason and "GRAPHMEM_PAGECACHE_MB" in sizing.reason


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="RAM must be positive"):
        size_memory(0, 10)
    with pytest.raises(ValueError, match="-1"):
        size_memory(1024, -1)


def test_the_system_readings(tmp_path: Path) -> None:
    assert machine_memory_mb() > 256
    assert store_mb(tmp_path / "missing") == 0
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "a").write_bytes(b"x" * 2**20)
    (tmp_path / "store" / "b").write_bytes(b"x" * 2**19)
    assert store_mb(tmp_path / "store") == pytest.approx(1.5)

"""Disk footprint of the Python environment it runs in, per installed distribution, as JSON.

    <venv>/bin/python scripts/install_footprint.py [--top N] [--max-mb MB]

Prints ``{"python": ..., "site_packages_mb": ..., "distributions": N, "cuda_mb": ...,
"cuda_share": ..., "top": [{"name", "mb"}, ...]}``: sizes in MB (10^6 bytes) of the files each
distribution's RECORD lists (importlib.metadata), ``cuda_mb`` the NVIDIA CUDA libraries
(``nvidia-*`` distributions and ``triton``) a CPU-only machine never loads. Standard library
only, so it runs in a bare venv.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import metadata
from pathlib import Path


def distribution_bytes(dist: metadata.Distribution) -> int:
    """Bytes on disk of the files ``dist``'s RECORD lists (missing files count 0)."""
    total = 0
    for file in dist.files or ():
        try:
            total += Path(dist.locate_file(file)).stat().st_size
        except OSError:
            continue
    return total


def is_cuda(name: str) -> bool:
    """Whether distribution ``name`` only serves NVIDIA GPUs (``nvidia-*``, ``triton``)."""
    lowered = name.lower()
    return lowered.startswith("nvidia-") or lowered.startswith("nvidia_") or lowered == "triton"


def main() -> None:
    """Print the footprint of this interpreter's environment as one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=12, help="largest distributions listed")
    parser.add_argument("--max-mb", type=float, default=None,
                        help="exit 1 when the environment exceeds this many MB")
    args = parser.parse_args()
    sizes: dict[str, int] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"] or "?"
        sizes[name] = sizes.get(name, 0) + distribution_bytes(dist)
    total = sum(sizes.values())
    cuda = sum(size for name, size in sizes.items() if is_cuda(name))
    top = sorted(sizes.items(), key=lambda kv: -kv[1])[:args.top]
    print(json.dumps({
        "python": sys.version.split()[0],
        "site_packages_mb": round(total / 1e6, 1),
        "distributions": len(sizes),
        "cuda_mb": round(cuda / 1e6, 1),
        "cuda_share": round(cuda / total, 3) if total else 0.0,
        "without_cuda_mb": round((total - cuda) / 1e6, 1),
        "top": [{"name": name, "mb": round(size / 1e6, 1)} for name, size in top],
    }, indent=2))
    if args.max_mb is not None and total / 1e6 > args.max_mb:
        sys.exit(f"FAIL: the environment takes {total / 1e6:.0f} MB, over the budget of "
                 f"{args.max_mb:.0f} MB (docs/getting-started.md#install-footprint)")


if __name__ == "__main__":
    main()

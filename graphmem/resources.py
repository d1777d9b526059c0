"""Locate the shipped ``cypher/`` and ``migrations/`` folders.

In a wheel they live in ``graphmem/_resources/``; in a source checkout (editable install) they
are the repository's top-level folders.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from graphmem.errors import ConfigurationError


def resource_dir(name: str) -> Path:
    """Path of the shipped folder ``name`` (``"cypher"`` or ``"migrations"``).

    Raises:
        ConfigurationError: when neither the wheel copy nor the checkout copy exists.
    """
    packaged = Path(str(resources.files("graphmem"))) / "_resources" / name
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / name
    if checkout.is_dir():
        return checkout
    raise ConfigurationError(f"resource folder {name!r} not found in {packaged} or {checkout}")

"""Imports of optional features (pip extras) that fail with one clear message.

::

    bm25s = require("bm25s", extra="eval")   # ConfigurationError: ... pip install 'graphmem[eval]'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from graphmem.errors import ConfigurationError

__all__ = ["require"]


def require(module: str, extra: str, feature: str = "") -> ModuleType:
    """Import ``module``, which graphmem declares only in the pip extra ``extra``.

    Args:
        module: the importable name (e.g. ``"langchain_neo4j"``).
        extra: the graphmem extra that installs it (e.g. ``"eval"``).
        feature: what needs it, for the message (e.g. ``"the vector-RAG baseline"``).
    Returns:
        The imported module.
    Raises:
        ConfigurationError: the module is not installed; the message names the module, the
            extra and the ``pip install 'graphmem[extra]'`` command (``__cause__`` keeps the
            ImportError).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        what = f"{feature} needs" if feature else "needs"
        raise ConfigurationError(
            f"{what} {module!r}, part of graphmem's optional extra {extra!r}: "
            f"pip install 'graphmem[{extra}]'"
        ) from exc

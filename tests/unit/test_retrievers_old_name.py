"""The retrievers live in graphmem.langchain.retrievers; the old module name still imports the
same classes, with a DeprecationWarning naming the new one."""

from __future__ import annotations

import importlib
import sys

import pytest

import graphmem.langchain.retrievers as retrievers


def test_the_old_name_warns_and_gives_the_same_classes() -> None:
    sys.modules.pop("graphmem.retrievers", None)
    with pytest.warns(DeprecationWarning, match="graphmem.langchain.retrievers"):
        old = importlib.import_module("graphmem.retrievers")
    assert old.StateRetriever is retrievers.StateRetriever
    assert old.CombinedGraphMemoryRetriever is retrievers.CombinedGraphMemoryRetriever
    assert set(old.__all__) == set(retrievers.__all__)

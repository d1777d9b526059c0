"""Embedder protocol, validation, and that ``import graphmem`` stays light."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from graphmem.embeddings import (
    Embedder,
    HashingEmbedder,
    check_dimension,
    validate_texts,
    validate_vectors,
)
from graphmem.errors import EmbeddingDimensionError, EmptyTextError


def test_hashing_embedder_shapes_and_unit_norm() -> None:
    emb = HashingEmbedder(256)
    assert isinstance(emb, Embedder)
    out = emb.embed_documents(["red apple", "green apple", "!!!"])
    assert out.shape == (3, 256) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-6)
    assert float(out[0] @ out[1]) > float(out[0] @ out[2])


@pytest.mark.parametrize("bad", ["", "   ", "\n\t"])
def test_empty_text_is_a_typed_error_naming_the_item(bad: str) -> None:
    with pytest.raises(EmptyTextError, match=r"text\[1\]"):
        validate_texts(["ok", bad])


@pytest.mark.parametrize("dim", [0, -1, 4097])
def test_dimension_bounds(dim: int) -> None:
    with pytest.raises(EmbeddingDimensionError, match=str(dim)):
        check_dimension(dim)


def test_nan_row_is_named() -> None:
    vectors = np.ones((3, 4), dtype=np.float32)
    vectors[2, 1] = np.nan
    with pytest.raises(EmbeddingDimensionError, match="row 2"):
        validate_vectors(vectors, 4)
    with pytest.raises(EmbeddingDimensionError, match=r"\(n, 5\)"):
        validate_vectors(np.ones((2, 4)), 5)


def test_import_graphmem_does_not_import_torch() -> None:
    code = ("import sys, graphmem, graphmem.facade, graphmem.cli.main; "
            "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]

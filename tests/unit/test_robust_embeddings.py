"""Every vector is checked in one place before it is written: a plugged-in embedder (or a vector
passed in directly) that yields zeros, NaN, infinity or another width gets a typed error naming
the row."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.embeddings import ValidatingEmbedder, validate_vectors
from graphmem.errors import EmbeddingDimensionError, InvalidInputError


class _Plugged:
    """A user's embedder returning a chosen matrix whatever the texts."""

    def __init__(self, out: np.ndarray, dimension: int = 4):
        self.out = out
        self.dimension = dimension

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.out

    def embed_query(self, text: str) -> np.ndarray:
        return self.out[0]


GOOD = np.eye(3, 4, dtype=np.float32)


@pytest.mark.parametrize(("row", "value", "message"), [
    (1, np.nan, r"row 1 has NaN or infinity \(nan at column 2\)"),
    (2, np.inf, r"row 2 has NaN or infinity \(inf at column 2\)"),
    (0, -np.inf, r"row 0 has NaN or infinity \(-inf at column 2\)"),
])
def test_non_finite_rows_are_refused_with_the_row(row, value, message) -> None:
    bad = GOOD.copy()
    bad[row, 2] = value
    with pytest.raises(EmbeddingDimensionError, match=message):
        validate_vectors(bad, 4)
    with pytest.raises(EmbeddingDimensionError, match=message):
        ValidatingEmbedder(_Plugged(bad)).embed_documents(["a", "b", "c"])


def test_zero_rows_are_refused_with_the_row() -> None:
    bad = GOOD.copy()
    bad[1] = 0.0
    with pytest.raises(EmbeddingDimensionError, match="row 1 is all zeros"):
        validate_vectors(bad, 4)
    with pytest.raises(EmbeddingDimensionError, match="row 1 is all zeros"):
        ValidatingEmbedder(_Plugged(bad)).embed_documents(["a", "b", "c"])
    with pytest.raises(EmbeddingDimensionError, match="row 0 is all zeros"):
        ValidatingEmbedder(_Plugged(np.zeros((1, 4), np.float32))).embed_query("a")


def test_wrong_width_and_non_numeric_are_refused() -> None:
    with pytest.raises(EmbeddingDimensionError, match=r"insight embedding: expected shape"):
        validate_vectors(GOOD[:, :3], 4, "insight embedding")
    with pytest.raises(EmbeddingDimensionError, match="not a numeric matrix"):
        validate_vectors([["a", "b", "c", "d"]], 4)
    with pytest.raises(InvalidInputError):
        ValidatingEmbedder(_Plugged(GOOD[:, :3])).embed_documents(["a", "b", "c"])


@given(st.lists(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32),
                         min_size=4, max_size=4), min_size=1, max_size=5))
def test_accepts_exactly_finite_non_zero_rows(rows) -> None:
    arr = np.asarray(rows, dtype=np.float32)
    ok = bool(np.isfinite(arr).all() and arr.any(axis=1).all())
    if ok:
        assert np.array_equal(validate_vectors(arr, 4), arr)
    else:
        with pytest.raises(EmbeddingDimensionError, match=r"row \d+"):
            validate_vectors(arr, 4)

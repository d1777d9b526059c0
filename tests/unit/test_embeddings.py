"""Embedder protocol, validation, and that ``import graphmem`` stays light."""

from __future__ import annotations

import os
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


def _model_dir(root, pooling: dict, extra: list[tuple[str, str, dict]] = (), settings=None):
    """A sentence-transformers model directory with configuration files only (no weights)."""
    import json

    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    (root / "1_Pooling").mkdir(parents=True)
    (root / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    for i, (folder, kind, config) in enumerate(extra, start=2):
        modules.append({"idx": i, "name": str(i), "path": folder,
                        "type": f"sentence_transformers.models.{kind}"})
        (root / folder).mkdir()
        if config:
            (root / folder / "config.json").write_text(json.dumps(config))
    (root / "modules.json").write_text(json.dumps(modules))
    if settings is not None:
        (root / "config_sentence_transformers.json").write_text(json.dumps(settings))
    return root


MEAN = {"word_embedding_dimension": 384, "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False}


def test_dimension_from_the_files_of_a_model_directory(tmp_path) -> None:
    from graphmem.embeddings import dimension_from_files

    assert dimension_from_files(_model_dir(tmp_path / "a", MEAN, [("2_Normalize", "Normalize", {})])) == 384
    both = {**MEAN, "pooling_mode_max_tokens": True}
    assert dimension_from_files(_model_dir(tmp_path / "b", both)) == 768
    dense = [("2_Dense", "Dense", {"in_features": 384, "out_features": 128}),
             ("3_Normalize", "Normalize", {})]
    assert dimension_from_files(_model_dir(tmp_path / "c", MEAN, dense)) == 128
    assert dimension_from_files(_model_dir(tmp_path / "d", MEAN, settings={"truncate_dim": 64})) == 64
    # what the files do not say for sure: unknown
    assert dimension_from_files(_model_dir(tmp_path / "e", MEAN, [("2_X", "LayerNorm", {})])) is None
    assert dimension_from_files(_model_dir(tmp_path / "f", {**MEAN, "pooling_mode_mean_tokens": False})) is None
    assert dimension_from_files(tmp_path / "missing") is None
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "modules.json").write_text("{not json")
    assert dimension_from_files(tmp_path / "g") is None


def test_a_directory_models_dimension_needs_no_model_load(tmp_path) -> None:
    from graphmem.embeddings import PACKAGED_MODEL, SentenceTransformerEmbedder, dimension_from_files

    emb = SentenceTransformerEmbedder(str(_model_dir(tmp_path / "m", MEAN, [("2_Dense", "Dense", {"out_features": 256})])))
    assert emb.dimension == 256 and emb._model is None
    packaged = SentenceTransformerEmbedder(PACKAGED_MODEL)
    assert dimension_from_files(packaged._model_path()) == 384 == packaged.dimension
    assert packaged._model is None


def test_loading_the_model_prints_nothing_and_keeps_the_callers_progress_bars() -> None:
    code = ("from transformers.utils import logging as l\n"
            "l.enable_progress_bar()  # the caller's choice, whatever the environment says\n"
            "from graphmem.embeddings import SentenceTransformerEmbedder\n"
            "print(len(SentenceTransformerEmbedder().embed_query('tea')))\n"
            "print(l.is_progress_bar_enabled())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True, env={**os.environ,
                                                       "HF_HUB_OFFLINE": "1"})
    assert out.stdout.split() == ["384", "True"]
    assert "Loading weights" not in out.stderr and "it/s" not in out.stderr, out.stderr

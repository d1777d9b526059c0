"""Pure parts of the evaluation harness: recall@k per category, percentiles, ratios, targets,
rank fusion of id lists, the benchmark's perturbations."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.errors import InvalidInputError
from graphmem.evaluation.filler import perturb_text, perturb_vectors
from graphmem.evaluation.metrics import (
    RecallTable,
    category_name,
    check_target,
    fuse_rankings,
    percentiles,
    ratio,
)


def test_recall_table_per_category_and_overall() -> None:
    table = RecallTable(ks=(1, 2, 3))
    # multi-hop (1): gold {a, b}; a at rank 1, b at rank 3
    assert table.add("m", 1, ["a", "x", "b"], ["a", "b"]) == {1: 0.5, 2: 0.5, 3: 1.0}
    # temporal (2): gold {c}; never found
    table.add("m", 2, ["x", "y"], ["c"])
    # duplicates in the ranking count once (unique ids, best first)
    table.add("m", 2, ["c", "c", "d"], ["c", "d"])
    out = table.table()["m"]
    assert out["multi_hop"] == {"recall@1": 0.5, "recall@2": 0.5, "recall@3": 1.0, "questions": 1}
    assert out["temporal"] == {"recall@1": 0.25, "recall@2": 0.5, "recall@3": 0.5, "questions": 2}
    assert out["overall"]["questions"] == 3
    assert out["overall"]["recall@3"] == pytest.approx((1.0 + 0.0 + 1.0) / 3, abs=1e-4)
    assert list(out)[-1] == "overall"


def test_recall_table_rejects_missing_evidence_and_bad_ks() -> None:
    with pytest.raises(InvalidInputError, match="no gold"):
        RecallTable().add("m", 4, ["a"], [])
    with pytest.raises(InvalidInputError, match="positive"):
        RecallTable(ks=(0, 5))


def test_category_names() -> None:
    assert category_name(1) == "multi_hop"
    assert category_name(5) == "adversarial"
    assert category_name(9) == "category_9"


def test_percentiles() -> None:
    values = list(range(1, 101))  # 1..100 ms
    assert percentiles(values) == {"p50": 50.5, "p95": 95.05}
    assert percentiles([7.0]) == {"p50": 7.0, "p95": 7.0}
    with pytest.raises(InvalidInputError):
        percentiles([])
    with pytest.raises(InvalidInputError):
        percentiles([1.0], qs=(101,))


def test_ratio_and_targets() -> None:
    assert ratio(3.0, 2.0) == 1.5
    assert ratio(1.0, 3.0) == 0.333
    assert ratio(1.0, 0.0) is None
    assert check_target(1.9, 2.0) == {"value": 1.9, "target": "<= 2", "met": True}
    assert check_target(2.1, 2.0)["met"] is False
    assert check_target(0.75, 0.7, higher_is_better=True)["met"] is True
    assert check_target(0.5, 0.7, higher_is_better=True)["met"] is False
    assert check_target(None, 1.5)["met"] is False


def test_fuse_rankings_is_rrf() -> None:
    # b: 1/(60+2) + 1/(60+1) beats a: 1/(60+1) alone and c: 1/(60+2)
    assert fuse_rankings([["a", "b"], ["b", "c"]]) == ["b", "a", "c"]
    assert fuse_rankings([["a", "a", "b"]]) == ["a", "b"]


def test_perturbations_keep_unit_norm_and_closeness() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(50, 384)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    noisy = perturb_vectors(base, np.random.default_rng(1))
    assert noisy.shape == (50, 384) and noisy.dtype == np.float32
    assert np.allclose(np.linalg.norm(noisy, axis=1), 1.0, atol=1e-5)
    cos = (noisy * base).sum(axis=1)
    assert 0.88 < cos.min() and cos.max() < 0.97  # sigma 0.02 per dim: cosine ~ 0.93
    text = perturb_text("Caroline went to the support group", np.random.default_rng(0), 3)
    assert text.endswith("[v3]") and sorted(text[:-5].split()) == sorted("Caroline went to the support group".split())

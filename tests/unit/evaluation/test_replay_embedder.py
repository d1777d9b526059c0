"""The benchmark's replaying embedder (pure: no model, no database)."""

from __future__ import annotations

import numpy as np

from graphmem.evaluation.timing import ReplayEmbedder


class CountingModel:
    dimension = 2

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed_documents(self, texts):
        self.calls.append(list(texts))
        return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)

    def embed_query(self, text):
        return np.array([0.0, float(len(text))], dtype=np.float32)


def test_first_call_goes_to_the_model_as_given_and_repeats_are_replayed() -> None:
    model = CountingModel()
    replay = ReplayEmbedder(model)
    first = replay.embed_documents(["ab", "ab", "cde"])
    assert model.calls == [["ab", "ab", "cde"]] and replay.encoded == 3
    again = replay.embed_documents(["cde", "ab"])
    assert model.calls == [["ab", "ab", "cde"]]           # nothing encoded
    np.testing.assert_array_equal(again, first[[2, 0]])
    mixed = replay.embed_documents(["ab", "fghi", "fghi"])
    assert model.calls[-1] == ["fghi"] and replay.encoded == 4
    assert mixed.shape == (3, 2) and mixed.dtype == np.float32 and mixed[1, 0] == 4.0
    assert replay.embed_documents([]).shape == (0, 2)
    assert replay.dimension == 2 and replay.embed_query("xyz")[1] == 3.0

"""Bad input and hostile text at the validation layer (no database): every entry point's input
model raises a typed graphmem error that names the bad value, and hostile text survives the
input models exactly."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hostile_corpus import HOSTILE, HUGE_TEXT, LONE_SURROGATE

from graphmem.conversations import read_conversations
from graphmem.embeddings import HashingEmbedder, check_dimension, validate_texts, validate_vectors
from graphmem.errors import (
    EmbeddingDimensionError,
    EmptyTextError,
    InputFormatError,
    TrajectoryError,
    InvalidInputError,
)
from graphmem.experience.trajectories import as_trajectory, read_trajectories
from graphmem.insight import read_feedback_file
from graphmem.insight.memory import parse_feedback
from graphmem.names import node_id, validate_namespace
from graphmem.validation import MAX_TEXT_CHARS, validate_text


# ---------------------------------------------------------------- text
@pytest.mark.parametrize("bad", ["", "   ", "\n\t", None, 42, b"bytes"])
def test_empty_or_non_string_text_is_refused_by_name(bad) -> None:
    with pytest.raises(EmptyTextError, match=r"question\[1\]"):
        validate_texts(["fine", bad], what="question")


def test_too_long_text_names_its_length_and_the_limit() -> None:
    assert validate_text("x" * MAX_TEXT_CHARS) == "x" * MAX_TEXT_CHARS
    with pytest.raises(InvalidInputError, match=rf"{len(HUGE_TEXT)} characters.*{MAX_TEXT_CHARS}"):
        validate_text(HUGE_TEXT)
    with pytest.raises(InvalidInputError, match="MAX_TEXT_CHARS"):
        HashingEmbedder().embed_query(HUGE_TEXT)


def test_lone_surrogate_is_refused_naming_the_character() -> None:
    with pytest.raises(InvalidInputError, match=r"'\\ud800' at position 7"):
        validate_text(LONE_SURROGATE)
    with pytest.raises(InvalidInputError, match="not valid Unicode"):
        node_id("ns", "event", LONE_SURROGATE)


def test_hostile_corpus_passes_validation_unchanged_and_embeds_finitely() -> None:
    assert validate_texts(HOSTILE) == HOSTILE
    vectors = HashingEmbedder().embed_documents(HOSTILE)
    assert vectors.shape == (len(HOSTILE), 384) and np.isfinite(vectors).all()
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert len({node_id("ns", "query", h) for h in HOSTILE}) == len(HOSTILE)


# ---------------------------------------------------------------- vectors and dimensions
@pytest.mark.parametrize("dimension", [0, -1, 4097, 10**6, 3.0, "384", None])
def test_bad_embedding_dimension_is_named(dimension) -> None:
    with pytest.raises(EmbeddingDimensionError, match=repr(dimension).replace("(", r"\(")):
        check_dimension(dimension)
    with pytest.raises(EmbeddingDimensionError):
        HashingEmbedder(dimension)


def test_edge_dimensions_are_accepted() -> None:
    assert check_dimension(1) == 1 and check_dimension(4096) == 4096


def test_nan_infinity_and_wrong_width_vectors_are_refused() -> None:
    good = np.ones((3, 8), dtype=np.float32)
    for row, value in ((1, np.nan), (2, np.inf)):
        bad = good.copy()
        bad[row, 4] = value
        with pytest.raises(EmbeddingDimensionError, match=f"row {row} has NaN or infinity"):
            validate_vectors(bad, 8)
    with pytest.raises(EmbeddingDimensionError, match=r"expected shape \(n, 8\), got \(3, 7\)"):
        validate_vectors(good[:, :7], 8)
    with pytest.raises(EmbeddingDimensionError):
        validate_vectors(good[0], 8)


@pytest.mark.parametrize("bad", ["", "-starts-with-dash", "has space", "x" * 129, "ünïcode",
                                 "a/b", "a'b", None])
def test_bad_namespace_is_named(bad) -> None:
    with pytest.raises(InvalidInputError, match="invalid namespace"):
        validate_namespace(bad)


# ---------------------------------------------------------------- trajectories
def test_trajectory_without_actions_names_the_task() -> None:
    for record in ({"task_id": "t-7", "query": "q", "steps": [], "reward": 1.0},
                   {"task_id": "t-7", "query": "q", "reward": 1.0}):
        with pytest.raises(TrajectoryError, match=r"'t-7'.*no actions"):
            as_trajectory(record, 3)
    with pytest.raises(TrajectoryError, match="blank"):
        as_trajectory({"task_id": "t-8", "query": "q", "reward": 1.0,
                       "steps": [{"action": "   ", "observation": "o"}]})
    with pytest.raises(TrajectoryError, match="expected a Trajectory or a dict"):
        as_trajectory("go to the kitchen")


def test_trajectory_file_errors_name_file_and_line(tmp_path) -> None:
    good = {"task_id": "a", "query": "q", "steps": [{"action": "go to desk 1", "observation": "o"}],
            "reward": 1.0}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(good) + "\n" + '{"task_id": "b", "query": \n')
    with pytest.raises(InputFormatError, match=r"t\.jsonl:2: malformed JSON"):
        read_trajectories(path)
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({**good, "task_id": "c", "steps": []}))
    with pytest.raises(TrajectoryError, match=r"t\.jsonl:3: bad trajectory record 'c'.*no actions"):
        read_trajectories(path)


# ---------------------------------------------------------------- feedback and conversations
def test_feedback_errors_name_the_value_and_line(tmp_path) -> None:
    with pytest.raises(InvalidInputError, match="'maybe'"):
        parse_feedback({"query": "q", "status": "maybe"})
    with pytest.raises(EmptyTextError, match="query"):
        parse_feedback({"query": "  ", "status": "failed"})
    path = tmp_path / "f.jsonl"
    path.write_text('{"query": "q", "status": "failed"}\n[1, 2]\n')
    with pytest.raises(InputFormatError, match=r"f\.jsonl:2: expected a JSON object"):
        read_feedback_file(path)
    path.write_text('{"query": "q", "status": "failed"}\n\n{"query": "q2", "status": }\n')
    with pytest.raises(InputFormatError, match=r"f\.jsonl:3: not JSON"):
        read_feedback_file(path)


def test_conversation_errors_name_file_and_line(tmp_path) -> None:
    path = tmp_path / "c.jsonl"
    ok = {"speaker": "A", "text": "hi", "timestamp": "2024-01-01T10:00:00Z"}
    path.write_text(json.dumps(ok) + "\n" + "{not json}\n")
    with pytest.raises(InputFormatError, match=r"c\.jsonl: line 2: invalid JSON"):
        read_conversations(path, fmt="generic")
    path.write_text(json.dumps(ok) + "\n" + json.dumps({**ok, "text": "   "}) + "\n")
    with pytest.raises(InputFormatError, match=r"line 2.*text"):
        read_conversations(path, fmt="generic")
    path.write_text(json.dumps({**ok, "timestamp": "not a date at all"}) + "\n")
    with pytest.raises(InputFormatError, match="line 1"):
        read_conversations(path, fmt="generic")


def test_hostile_turns_are_read_back_exactly(tmp_path) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(json.dumps({"speaker": "Mallory", "text": h, "id": f"m{i}",
                                          "timestamp": f"2024-01-01T10:{i % 60:02d}:00Z"})
                              for i, h in enumerate(HOSTILE)), encoding="utf-8")
    [conversation] = read_conversations(path, fmt="generic")
    assert sorted(t.text for t in conversation.turns) == sorted(HOSTILE)

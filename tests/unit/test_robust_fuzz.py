"""Property tests: every input reader, fed random Unicode and JSON shapes, either parses or
raises a typed InvalidInputError; every public recall/ingest entry point, given odd numeric
parameters, either works or raises InvalidInputError before anything is written."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from fake_runner import FakeRunner, HashEmbedder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.conversations import read_generic, read_locomo, read_memconflict
from graphmem.errors import InvalidInputError
from graphmem.experience import trajectories
from graphmem.insight.feedback_file import read_feedback_file
from graphmem.facade import GraphMemory

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

_scalars = (st.none() | st.booleans() | st.integers(-10**20, 10**20)
            | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30))
_keys = st.sampled_from(["id", "speaker", "text", "timestamp", "session", "messages",
                         "conversation", "sample_id", "speaker_a", "session_1",
                         "session_1_date_time", "dia_id", "qa", "ID", "Fixed_Profile",
                         "Full_Session_Chain", "Session_ID", "Date", "Session_Type",
                         "task_id", "query", "steps", "action", "observation", "reward",
                         "score", "final_score", "status", "trajectory"]) | st.text(max_size=8)
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(_keys, inner, max_size=6), max_leaves=25)

_READERS = {
    "locomo": (read_locomo, ".json"), "generic_json": (read_generic, ".json"),
    "generic_jsonl": (read_generic, ".jsonl"), "memconflict": (read_memconflict, ".jsonl"),
    "trajectories_json": (trajectories.read_generic, ".json"),
    "trajectories_jsonl": (trajectories.read_trajectories, ".jsonl"),
    "feedback": (read_feedback_file, ".jsonl"),
}


def _write(content: str | bytes, suffix: str) -> Path:
    handle = tempfile.NamedTemporaryFile(suffix=suffix, delete=False)
    with handle:
        handle.write(content if isinstance(content, bytes) else content.encode("utf-8",
                                                                              "surrogatepass"))
    return Path(handle.name)


def _call(reader, path: Path) -> None:
    try:
        reader(path)
    except InvalidInputError:
        pass
    finally:
        path.unlink(missing_ok=True)


@pytest.mark.parametrize("name", sorted(_READERS))
@SETTINGS
@given(data=_json)
def test_readers_on_random_json(name: str, data: object) -> None:
    reader, suffix = _READERS[name]
    if suffix == ".jsonl":
        rows = data if isinstance(data, list) else [data]
        text = "\n".join(json.dumps(r) for r in rows)
    else:
        text = json.dumps(data)
    _call(reader, _write(text, suffix))


@pytest.mark.parametrize("name", sorted(_READERS))
@SETTINGS
@given(raw=st.text(max_size=200) | st.binary(max_size=200))
def test_readers_on_random_text(name: str, raw: str | bytes) -> None:
    reader, suffix = _READERS[name]
    _call(reader, _write(raw, suffix))


# ---- numeric parameters of every public recall / ingest entry point ---------------------------

_odd = (st.integers(-2**40, 2**40) | st.floats(allow_nan=True, allow_infinity=True)
        | st.sampled_from([True, False, None, "3", 2**31, 2.5, -1, 0, 1, 200, 201]))


def _facade(runner: FakeRunner) -> GraphMemory:
    return GraphMemory(runner, HashEmbedder(), namespace="ns-fuzz")


def _writes(runner: FakeRunner) -> list[str]:
    registry = runner.registry
    return [name for name, _ in runner.calls if registry.get(name).mode == "write"]


_CALLS = {
    "insight.recall.k": lambda m, v: m.insight.recall("q", k=v),
    "insight.recall.query_k": lambda m, v: m.insight.recall("q", query_k=v),
    "insight.recall.lam": lambda m, v: m.insight.recall("q", lam=v),
    "experience.recall.k": lambda m, v: m.experience.recall("q", k=v),
    "experience.recall.t": lambda m, v: m.experience.recall("q", t=v),
    "experience.ingest.k": lambda m, v: m.experience.ingest([_TRAJ], k=v),
    "experience.ingest.tau": lambda m, v: m.experience.ingest([_TRAJ], tau=v),
    "experience.ingest.batch_tasks": lambda m, v: m.experience.ingest([_TRAJ], batch_tasks=v),
    "state.recall.k": lambda m, v: m.state.recall("q", k=v),
    "state.recall.max_rounds": lambda m, v: m.state.recall("q", max_rounds=v),
    "associative.recall.k": lambda m, v: m.associative.recall("q", k=v),
    "associative.recall.max_rounds": lambda m, v: m.associative.recall("q", max_rounds=v),
}
#: Rows an empty namespace answers where an aggregate always returns one row.
_SCRIPT = {"associative/count_structure": [dict.fromkeys(
    ("episodes", "cues", "tags", "semantic_units", "themes", "has_tag", "leads_to",
     "next_episode", "derived_from", "groups"), 0)]}
_TRAJ = {"task_id": "t1", "query": "boil water", "reward": 1.0,
         "steps": [{"action": "go to sink", "observation": "ok"}]}


@pytest.mark.parametrize("entry", sorted(_CALLS))
@SETTINGS
@given(value=_odd)
def test_numeric_parameters_are_typed_errors_or_work(entry: str, value: object) -> None:
    runner = FakeRunner(_SCRIPT)
    try:
        _CALLS[entry](_facade(runner), value)
    except InvalidInputError:
        assert _writes(runner) == [], f"{entry}={value!r} wrote before refusing"


@pytest.mark.parametrize("entry,value", [("experience.recall.k", 2**31),
                                         ("experience.recall.k", 2.5),
                                         ("associative.recall.max_rounds", -1),
                                         ("insight.recall.lam", float("inf")),
                                         ("experience.ingest.tau", float("nan"))])
def test_named_bad_parameters_are_refused(entry: str, value: object) -> None:
    runner = FakeRunner()
    with pytest.raises(InvalidInputError, match=entry.rsplit(".", 1)[1]):
        _CALLS[entry](_facade(runner), value)
    assert _writes(runner) == []

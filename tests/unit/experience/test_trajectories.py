import json
from pathlib import Path

import pytest

from graphmem.errors import InputFormatError, TrajectoryError
from graphmem.experience.trajectories import read_alfworld, read_generic, read_scienceworld, read_trajectories

from graphmem.datasets import bundled_path

#: the bundled ScienceWorld sample (tests need nothing outside the repository)
SCIENCEWORLD_TRAIN = bundled_path("scienceworld_train")


def _write(path: Path, records: list) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_scienceworld_gold_slice():
    trajectories = read_scienceworld(SCIENCEWORLD_TRAIN, limit=5)
    assert len(trajectories) == 5
    first = trajectories[0]
    assert first.task_id == "9_412" and first.task_type == "task-2a-test-conductivity"
    assert first.reward == 1.0 and first.grammar == "scienceworld"
    assert first.steps[0].action == "open door to outside"


def _alfworld_trial(root: Path, task: str, trial: str, goal: str, actions: list[str]) -> None:
    """One ``<task>/<trial>/gt_traj.json`` in ALFWorld's ETO/ShareGPT form (alternating human
    observation / gpt action turns); ALFWorld is not bundled, so the test writes its own."""
    turns = [{"from": "human", "value": "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the "
              f"middle of a room. You see a desk 1 and a shelf 1.\n\nYour task is to: {goal}."}]
    for i, action in enumerate(actions, 1):
        turns += [{"from": "gpt", "value": action}, {"from": "human", "value": f"observation {i}"}]
    folder = root / task / trial
    folder.mkdir(parents=True)
    (folder / "gt_traj.json").write_text(json.dumps(turns), encoding="utf-8")


def test_alfworld_slice(tmp_path):
    root = tmp_path / "alfworld" / "json_2.1.1" / "train"
    _alfworld_trial(root, "look_at_obj_in_light-AlarmClock-None-DeskLamp-301", "trial_T1",
                    "look at alarmclock under the desklamp", ["go to shelf 1", "take alarmclock 1 from shelf 1", "use desklamp 1"])
    _alfworld_trial(root, "pick_and_place_simple-Book-None-Shelf-7", "trial_T2",
                    "put a book in shelf", ["go to desk 1", "take book 1 from desk 1", "put book 1 in/on shelf 1"])
    _alfworld_trial(root, "pick_clean_then_place_in_recep-Cup-None-Shelf-9", "trial_T3",
                    "clean some cup and put it in shelf", ["go to desk 1", "take cup 1 from desk 1"])
    _alfworld_trial(root, "pick_heat_then_place_in_recep-Egg-None-Desk-2", "trial_T4",
                    "heat some egg and put it in desk", ["go to shelf 1"])
    trajectories = read_alfworld(root, limit=3)
    assert len(trajectories) == 3
    assert all(t.grammar == "alfworld" and t.reward == 1.0 and t.steps for t in trajectories)
    assert trajectories[0].query.startswith(("put", "look", "examine", "clean", "heat", "cool", "find"))
    assert "/" in trajectories[0].task_id


def test_detection(tmp_path):
    path = _write(tmp_path / "g.jsonl", [{"query": "q", "steps": [{"action": "go to x", "observation": "ok"}],
                                          "reward": 0.5}])
    (t,) = read_trajectories(path)
    assert t.task_id == "g:1" and t.reward == 0.5


def test_bad_records_name_record_and_line(tmp_path):
    good = {"id": "a", "task_description": "do it", "steps": [{"action": "go to x", "observation": "o"}],
            "final_score": 100}
    path = _write(tmp_path / "sw.jsonl", [good, {**good, "id": "b", "steps": []}])
    with pytest.raises(TrajectoryError, match=r"sw.jsonl:2: bad trajectory record 'b'.*no actions"):
        read_scienceworld(path)
    path = _write(tmp_path / "sw2.jsonl", [{"id": "c", "steps": [{"action": "x", "observation": "y"}]}])
    with pytest.raises(TrajectoryError, match=r":1: .*'c'.*task_description"):
        read_scienceworld(path)
    path = _write(tmp_path / "sw3.jsonl", [{**good, "id": "d", "steps": [{"action": 3, "observation": "y"}]}])
    with pytest.raises(TrajectoryError, match=r"'d'.*steps\.0\.action"):
        read_scienceworld(path)
    path = _write(tmp_path / "gen.jsonl", [{"task_id": "e", "query": "q", "steps": [{"action": "a", "observation": "o"}],
                                            "reward": 2}])
    with pytest.raises(TrajectoryError, match=r"gen.jsonl:1: .*'e'.*reward"):
        read_generic(path)
    bad = tmp_path / "broken.jsonl"
    bad.write_text(json.dumps(good) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"broken.jsonl:2: malformed JSON"):
        read_scienceworld(bad)
    with pytest.raises(InputFormatError, match="no such file"):
        read_trajectories(tmp_path / "missing.jsonl")

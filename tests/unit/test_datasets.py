"""graphmem.datasets: the bundled samples parse with graphmem's own readers, carry their license
and attribution, and resolve() prefers full data and fails with one typed error."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from graphmem import datasets
from graphmem.conversations import read_locomo
from graphmem.datasets import DATASETS, bundled_path, bundled_root, resolve
from graphmem.datasets.hotpotqa import HotpotExample, read_hotpotqa
from graphmem.errors import ConfigurationError, DataNotFoundError, InputFormatError, InvalidInputError
from graphmem.experience.trajectories import read_scienceworld
from graphmem.insight.datasets import load_tasks

BUNDLED = [name for name, info in DATASETS.items() if info.bundled]


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHMEM_DATA", raising=False)


def test_registry_names() -> None:
    assert set(DATASETS) == {"locomo", "beam", "fever", "scienceworld_train", "scienceworld_dev",
                             "hotpotqa", "memconflict"}
    assert not DATASETS["memconflict"].bundled and not DATASETS["beam"].bundled
    for info in DATASETS.values():
        assert info.source and info.license and "://" not in info.source


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_file_exists_beside_its_attribution(name: str) -> None:
    path = bundled_path(name)
    assert path.is_file() and path.stat().st_size > 0
    assert path == bundled_root() / DATASETS[name].paths[0]
    attribution = (path.parent / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "License" in attribution and path.name in attribution


def test_package_size_and_notices() -> None:
    root = bundled_root()
    total = sum(p.stat().st_size for p in root.parent.rglob("*") if p.is_file())
    assert total < 1_500_000
    notice = (root.parent / "NOTICE").read_text(encoding="utf-8")
    readme = (root.parent / "README.md").read_text(encoding="utf-8")
    for name in BUNDLED:
        assert DATASETS[name].paths[0] in notice
        assert DATASETS[name].paths[0] in readme
    assert "MemConflict" in notice
    assert not any("memconflict" in p.as_posix().lower() for p in root.rglob("*"))


def test_locomo_license_is_the_upstream_cc_by_nc() -> None:
    text = (bundled_root() / "locomo" / "LICENSE.txt").read_text(encoding="utf-8")
    assert "Attribution-NonCommercial 4.0 International" in text


def test_locomo_sample_parses_with_qa() -> None:
    conversations = read_locomo(bundled_path("locomo"))
    assert [c.id for c in conversations] == ["conv-26", "conv-30"]  # demo: index 0; quick: conv-30
    for conv in conversations:
        assert len(conv.turns) > 100
        assert conv.qa and all(q.question for q in conv.qa)
    assert len(conversations[0].qa) == 199 and len(conversations[1].qa) == 105


def test_fever_sample_parses_with_the_replay_loader() -> None:
    tasks = load_tasks(bundled_path("fever"))
    assert len(tasks) == 250
    assert {t.kind for t in tasks} == {"SUPPORTS", "REFUTES", "NOT ENOUGH INFO"}
    assert load_tasks("fever", 60, bundled_root()) == tasks[:60]


def test_scienceworld_samples_parse_and_cover_every_task_type() -> None:
    train = read_scienceworld(bundled_path("scienceworld_train"))
    dev = read_scienceworld(bundled_path("scienceworld_dev"))
    assert len(train) == 56 and len(dev) == 26
    per_type_train = Counter(t.task_type for t in train)
    per_type_dev = Counter(t.task_type for t in dev)
    assert len(per_type_train) == 24 and min(per_type_train.values()) >= 2
    assert set(per_type_dev) == set(per_type_train)
    orders = [json.loads(line)["order"] for line in
              bundled_path("scienceworld_train").read_text(encoding="utf-8").splitlines()]
    assert orders == sorted(orders) and orders[:24] == list(range(24))
    assert len(load_tasks("scienceworld", 6, bundled_root())) == 6


def test_hotpotqa_sample_parses_into_models() -> None:
    examples = read_hotpotqa(bundled_path("hotpotqa"))
    assert len(examples) == 20
    assert all(isinstance(e, HotpotExample) for e in examples)
    for e in examples:
        assert len(e.context) >= 2 and e.supporting_facts
        assert all(s.strip() for s in e.supporting_sentences())
    assert read_hotpotqa(bundled_path("hotpotqa"), limit=3) == examples[:3]


def test_hotpotqa_reader_accepts_the_official_layout_and_names_bad_items(tmp_path: Path) -> None:
    official = [{"_id": "a1", "question": "Q?", "answer": "yes", "type": "comparison",
                 "level": "easy", "supporting_facts": [["T", 0]],
                 "context": [["T", ["First.", "Second."]], ["U", ["Other."]]]}]
    path = tmp_path / "hotpot.json"
    path.write_text(json.dumps(official), encoding="utf-8")
    [example] = read_hotpotqa(path)
    assert example.id == "a1" and example.supporting_sentences() == ["First."]
    path.write_text(json.dumps([{"_id": "b", "question": "Q?", "supporting_facts": [["T"]],
                                 "context": []}]), encoding="utf-8")
    with pytest.raises(InputFormatError, match="example 0"):
        read_hotpotqa(path)
    path.write_text("[{", encoding="utf-8")
    with pytest.raises(InputFormatError, match="hotpot.json:1"):
        read_hotpotqa(path)


def test_resolve_without_full_data_is_the_bundled_sample() -> None:
    for name in BUNDLED:
        assert resolve(name) == bundled_path(name)


def test_resolve_prefers_data_dir_then_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_dir, cli_dir = tmp_path / "env", tmp_path / "cli"
    for folder in (env_dir, cli_dir):
        (folder / "fever").mkdir(parents=True)
        shutil.copy(bundled_path("fever"), folder / "fever" / "paper_dev.jsonl")
    monkeypatch.setenv("GRAPHMEM_DATA", str(env_dir))
    assert resolve("fever") == env_dir / "fever" / "paper_dev.jsonl"
    assert resolve("fever", cli_dir) == cli_dir / "fever" / "paper_dev.jsonl"
    # a folder without this dataset falls back to the sample (not with full=True)
    assert resolve("locomo", cli_dir) == bundled_path("locomo")
    with pytest.raises(DataNotFoundError, match="locomo"):
        resolve("locomo", cli_dir, full=True)


def test_resolve_uses_the_upstream_locomo_file_name(tmp_path: Path) -> None:
    (tmp_path / "locomo").mkdir()
    shutil.copy(bundled_path("locomo"), tmp_path / "locomo" / "locomo10.json")
    assert resolve("locomo", tmp_path) == tmp_path / "locomo" / "locomo10.json"


def test_missing_full_only_dataset_is_one_typed_error() -> None:
    with pytest.raises(DataNotFoundError) as info:
        resolve("memconflict")
    message = str(info.value)
    assert isinstance(info.value, ConfigurationError)
    for part in ("memconflict/Step4_1.jsonl", "TaoZhen1110/MemConflict", "--data DIR", "GRAPHMEM_DATA"):
        assert part in message
    with pytest.raises(DataNotFoundError, match="GRAPHMEM_DATA"):
        bundled_path("memconflict")


def test_missing_full_only_dataset_names_the_path_tried(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_DATA", str(tmp_path))
    with pytest.raises(DataNotFoundError) as info:
        resolve("memconflict")
    assert str(tmp_path / "memconflict" / "Step4_1.jsonl") in str(info.value)
    assert "GRAPHMEM_DATA" in str(info.value)


def test_a_missing_data_folder_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DataNotFoundError, match="--data"):
        resolve("fever", tmp_path / "nope")
    monkeypatch.setenv("GRAPHMEM_DATA", str(tmp_path / "nope"))
    with pytest.raises(DataNotFoundError, match="GRAPHMEM_DATA"):
        resolve("fever")


def test_unknown_dataset_is_invalid_input() -> None:
    with pytest.raises(InvalidInputError, match="locomo"):
        resolve("nosuch")


def test_describe_lists_every_dataset() -> None:
    rows = datasets.describe()
    assert [r["name"] for r in rows] == list(DATASETS)


def test_optional_import_names_the_extra() -> None:
    from graphmem.optional import require

    assert require("json", extra="eval") is json
    with pytest.raises(ConfigurationError, match=r"graphmem\[eval\]") as info:
        require("graphmem_no_such_module", extra="eval", feature="the BM25 baseline")
    assert isinstance(info.value.__cause__, ImportError)


def test_the_wheel_ships_the_samples_with_their_licenses(tmp_path: Path) -> None:
    import subprocess
    import sys
    import zipfile

    repo = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                    str(tmp_path)], cwd=repo, check=True, capture_output=True)
    (wheel,) = tmp_path.glob("graphmem-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    package = repo / "graphmem" / "datasets"
    shipped = {p.relative_to(repo).as_posix() for p in package.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert "graphmem/datasets/samples/locomo/LICENSE.txt" in shipped
    assert "graphmem/datasets/NOTICE" in shipped
    missing = shipped - names
    assert not missing, missing

#!/usr/bin/env bash
# Check that graphmem works from a bare `pip install` of its wheel, with nothing beside it.
#
#   scripts/check_wheel_install.sh [--demo] [--keep]
#
# 1. builds the wheel into a temporary directory (python -m build --wheel);
# 2. creates a clean venv and installs the wheel with NO extras: with uv when found (UV, else
#    `uv` on PATH, else beside PYTHON), whose cache (UV_CACHE_DIR, default ~/.cache/uv) makes a
#    repeat install take seconds; else python -m venv + pip (pip's cache keeps the downloads, but
#    unpacking torch still takes minutes). The first run downloads torch and the rest;
#    then prints the venv's footprint per distribution (scripts/install_footprint.py: total,
#    CUDA libraries, the largest distributions) as JSON, failing above 7,000 MB;
# 3. from an empty temporary directory, with the interpreter isolated (-I: no PYTHONPATH, no
#    user site, no current directory on sys.path), imports every module of graphmem
#    (pkgutil.walk_packages). A module may fail only with graphmem's ConfigurationError naming a
#    pip extra (pip install 'graphmem[<extra>]'); anything else is a failure;
# 4. reads every bundled dataset sample with graphmem's readers;
# 5. runs `graphmem --help`; with --demo also `graphmem demo --quick` from the empty directory
#    with its own GRAPHMEM_HOME (NEO4J_URI if set, else the embedded local launcher on free ports;
#    needs java + mvn), then `graphmem neo4j stop` with the same GRAPHMEM_HOME (also on failure).
# Exits non-zero on any failure. Environment: PYTHON (default python3), the interpreter that
# builds the wheel and creates the venv; UV, the uv binary (optional); BUILD_ISOLATION=1 builds in an isolated environment
# (default: --no-isolation, which needs hatchling in PYTHON).
set -euo pipefail

demo=0
keep=0
for arg in "$@"; do
  case "$arg" in
    --demo) demo=1 ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "unknown argument: $arg (use --demo, --keep)" >&2; exit 2 ;;
  esac
done

PYTHON=${PYTHON:-python3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/graphmem-wheel-check.XXXXXX")
demo_home="$work/graphmem-home"
cleanup() {
  # stop the embedded Neo4j the demo started (no-op when none runs)
  if [[ -x "$work/venv/bin/graphmem" && -d "$demo_home" ]]; then
    env -u PYTHONPATH GRAPHMEM_HOME="$demo_home" "$work/venv/bin/graphmem" neo4j stop || true
  fi
  if [[ $keep == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

began=$(date +%s)
step() { echo; echo "== [$(( $(date +%s) - began ))s] $*"; }

step "build the wheel"
isolation=(--no-isolation)
[[ ${BUILD_ISOLATION:-0} == 1 ]] && isolation=()
"$PYTHON" -m build --wheel "${isolation[@]}" --outdir "$work/dist" "$root" >"$work/build.log" 2>&1 \
  || { cat "$work/build.log" >&2; echo "FAIL: wheel build" >&2; exit 1; }
wheel=$(ls "$work"/dist/graphmem-*.whl)
echo "$(basename "$wheel") ($(du -h "$wheel" | cut -f1))"

uv=${UV:-$(command -v uv || true)}
[[ -z $uv && -x "$(dirname "$PYTHON")/uv" ]] && uv="$(dirname "$PYTHON")/uv"
venv_python="$work/venv/bin/python"
installed=$(date +%s)
if [[ -n $uv ]]; then
  step "clean venv + uv pip install the wheel (no extras; uv cache ${UV_CACHE_DIR:-~/.cache/uv})"
  env -u PYTHONPATH -u VIRTUAL_ENV "$uv" venv --quiet --seed --python "$PYTHON" "$work/venv"
  env -u PYTHONPATH -u VIRTUAL_ENV "$uv" pip install --quiet --python "$venv_python" "$wheel"
else
  step "clean venv + pip install the wheel (no extras; pip cache)"
  "$PYTHON" -m venv "$work/venv"
  env -u PYTHONPATH "$venv_python" -m pip install --quiet --disable-pip-version-check "$wheel"
fi
echo "installed in $(( $(date +%s) - installed )) s"
step "footprint of the bare install (docs/getting-started.md#install-footprint)"
env -u PYTHONPATH "$venv_python" -I "$root/scripts/install_footprint.py" --top 8 --max-mb 7000 | tee "$work/footprint.json"

mkdir "$work/empty"
cd "$work/empty"
run() { env -u PYTHONPATH -u GRAPHMEM_DATA PATH="$work/venv/bin:$PATH" "$@"; }

step "import every module of graphmem from an empty directory"
run "$venv_python" -I - "$root" <<'PY'
import importlib
import pkgutil
import sys
import traceback
from pathlib import Path

repo = Path(sys.argv[1]).resolve()
import graphmem
from graphmem.errors import ConfigurationError

location = Path(graphmem.__file__).resolve()
if repo in location.parents:
    sys.exit(f"FAIL: graphmem imported from the repository ({location}), not the wheel")
print(f"graphmem from {location.parent}")

extras = ("scienceworld", "eval", "docs", "test")
imported, optional, failed = [], [], []


def attempt(name: str) -> None:
    try:
        importlib.import_module(name)
        imported.append(name)
    except ConfigurationError as exc:
        if any(f"graphmem[{extra}]" in str(exc) for extra in extras):
            optional.append(f"{name}: {exc}")
        else:
            failed.append(f"{name}: ConfigurationError without an extra: {exc}")
    except BaseException as exc:  # noqa: BLE001 - every other failure is reported
        failed.append(f"{name}: {type(exc).__name__}: {exc}\n"
                      + "".join(traceback.format_exception(exc)[-3:]))


names = ["graphmem"] + [m.name for m in pkgutil.walk_packages(
    graphmem.__path__, "graphmem.", onerror=lambda n: None)]
for name in sorted(set(names)):
    attempt(name)
print(f"{len(imported)} modules imported, {len(optional)} need an extra, {len(failed)} failed")
for line in optional:
    print("  optional:", line)
for line in failed:
    print("  FAIL:", line)
sys.exit(1 if failed or not imported else 0)
PY

step "read the bundled samples"
run "$venv_python" -I - <<'PY'
from graphmem.conversations import read_locomo
from graphmem.datasets import DATASETS, resolve
from graphmem.datasets.hotpotqa import read_hotpotqa
from graphmem.errors import DataNotFoundError
from graphmem.experience.trajectories import read_scienceworld
from graphmem.insight.datasets import load_tasks

counts = {
    "locomo": len(read_locomo(resolve("locomo"))),
    "fever": len(load_tasks(resolve("fever"))),
    "scienceworld_train": len(read_scienceworld(resolve("scienceworld_train"))),
    "scienceworld_dev": len(read_scienceworld(resolve("scienceworld_dev"))),
    "hotpotqa": len(read_hotpotqa(resolve("hotpotqa"))),
}
assert all(counts.values()), counts
assert set(counts) == {n for n, i in DATASETS.items() if i.bundled}
try:
    resolve("memconflict")
except DataNotFoundError as exc:
    assert "GRAPHMEM_DATA" in str(exc)
else:
    raise SystemExit("FAIL: memconflict resolved without a data folder")
print("bundled samples:", counts)
PY

step "graphmem --help"
run graphmem --help >"$work/help.txt" || { cat "$work/help.txt"; echo "FAIL: graphmem --help" >&2; exit 1; }
head -n 5 "$work/help.txt"

if [[ $demo == 1 ]]; then
  step "graphmem demo --quick (GRAPHMEM_HOME=$demo_home)"
  ports=()
  if [[ -z ${NEO4J_URI:-} ]]; then
    # free loopback ports, so a Neo4j already on 7687/7474 (another checkout) does not collide
    read -r bolt browser < <("$venv_python" -I -c 'import socket
s = [socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
    ports=(GRAPHMEM_BOLT_PORT="${GRAPHMEM_BOLT_PORT:-$bolt}" GRAPHMEM_BROWSER_PORT="${GRAPHMEM_BROWSER_PORT:-$browser}")
  fi
  demo_began=$(date +%s)
  run env GRAPHMEM_HOME="$demo_home" "${ports[@]}" graphmem demo --quick
  echo "demo --quick: $(( $(date +%s) - demo_began )) s"
  run env GRAPHMEM_HOME="$demo_home" graphmem neo4j stop
fi

step "OK: wheel installs and imports cleanly (wall time $(( $(date +%s) - began ))s)"

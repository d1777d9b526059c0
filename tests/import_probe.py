"""Which heavy libraries a ``graphmem`` command line loads: run each command line in turn, in
this one fresh process, through the typer application (typer's test runner), and after each say
which of :data:`WATCHED` are in ``sys.modules``.

    python tests/import_probe.py '[["--help"], ["neo4j", "status"]]'

Prints one JSON list: ``{"args", "exit_code", "loaded", "output"}`` per command line, in order
(``loaded`` is cumulative: a library a command loads stays loaded for the next ones).
Used by tests/unit/cli/test_light_imports.py and tests/integration/test_shell.py.
"""

from __future__ import annotations

import json
import sys

#: Top-level packages a command that embeds nothing must not load (the Neo4j driver only for
#: the commands that do not connect).
WATCHED = ("torch", "sentence_transformers", "transformers", "neo4j")


def main(lines: list[list[str]]) -> list[dict]:
    from typer.testing import CliRunner

    from graphmem.cli.main import app

    out = []
    for args in lines:
        result = CliRunner().invoke(app, args)
        loaded = sorted({name.partition(".")[0] for name in sys.modules} & set(WATCHED))
        out.append({"args": args, "exit_code": result.exit_code, "loaded": loaded,
                    "output": result.output[-20000:]})
    return out


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))

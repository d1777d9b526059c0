"""Take the Neo4j Browser screenshots of docs/neo4j.md from a real headless Chromium session.

Runs each saved query of ``cypher/browser/`` (with ``:param namespace``) in the Browser that the
local launcher serves, after loading graphmem's style sheet, and saves one PNG per query.

    pip install -e ".[docs]"            # playwright (drives the system Chromium)
    apt-get install chromium            # Debian's Chromium
    make demo                           # fills the "demo" namespace
    python scripts/browser_screenshots.py --namespace demo --out docs/screenshots

Args (CLI): --browser URL of the Browser, --bolt Bolt URI, --namespace, --out folder,
--chromium path of the Chromium binary, --wait seconds to let each graph settle.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from graphmem.graph.registry import CypherRegistry
from graphmem.resources import resource_dir

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def run_in_browser(page, command: str, wait_ms: int) -> None:
    """Type ``command`` into the Browser's editor and run it (Ctrl+Enter)."""
    editor = page.locator(".monaco-editor").first
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(command)
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(wait_ms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browser", default="http://127.0.0.1:7474/browser/")
    parser.add_argument("--bolt", default="bolt://127.0.0.1:7687")
    parser.add_argument("--namespace", default="demo")
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--wait", type=float, default=6.0)
    parser.add_argument("--only", nargs="*", help="query names (e.g. browser/state_topic_chain)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="extra Browser parameter (e.g. source_id=D1:3); repeatable")
    args = parser.parse_args()

    from graphmem.optional import require

    sync_playwright = require("playwright.sync_api", "docs", "Browser screenshots").sync_playwright

    registry = CypherRegistry.load()
    names = args.only or [n for n in registry.names() if n.startswith("browser/")]
    grass = (resource_dir("cypher") / "browser" / "graphmem.grass").read_text()
    style = re.sub(r"/\*.*?\*/", "", grass, flags=re.S)  # :style takes no comments
    args.out.mkdir(parents=True, exist_ok=True)
    wait_ms = int(args.wait * 1000)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(f"{args.browser}?dbms={args.bolt}&preselectAuthMethod=NO_AUTH")
        page.wait_for_timeout(wait_ms)
        run_in_browser(page, ":style " + " ".join(style.split()), 1500)
        params = {"namespace": args.namespace}
        params.update(dict(item.split("=", 1) for item in args.param))
        for key, value in params.items():
            run_in_browser(page, f":param {key} => {json.dumps(value)}", 1000)
        for name in names:
            query = registry.get(name)
            missing = sorted(query.params - set(params))
            if missing:
                raise SystemExit(f"{name}: give --param for {missing}")
            run_in_browser(page, ":clear", 500)
            run_in_browser(page, query.text, wait_ms)
            target = args.out / f"{name.split('/', 1)[1]}.png"
            page.screenshot(path=str(target))
            print(f"saved {target}")
        browser.close()


if __name__ == "__main__":
    main()

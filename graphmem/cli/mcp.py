"""``graphmem mcp -n NS``: serve graphmem to MCP clients over stdio (see
:mod:`graphmem.mcp_server`)."""

from __future__ import annotations

import typer

from graphmem.cli.common import cli_errors

app = typer.Typer(help="Serve graphmem over MCP (stdio).")


@app.command("mcp")
def mcp(
    namespace: str = typer.Option(..., "--namespace", "-n",
                                  help="the namespace every tool reads and writes"),
) -> None:
    """Serve the tools remember, recall, recall_state, feedback, recall_experience, forget and
    recall_memory (any registered memory) over stdio for one namespace (stdout carries the
    protocol; logs go to stderr)."""
    from graphmem.mcp_server import build_server
    from graphmem.names import validate_namespace

    with cli_errors():
        validate_namespace(namespace)
        server = build_server(namespace)
    try:
        server.run("stdio")
    finally:
        server._graphmem_holder.close()

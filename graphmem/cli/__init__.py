"""The ``graphmem`` command line (typer)."""

"""What the ingest benchmarks share: their command-line options (datasets folder, timed
conversation, rounds, torch threads) and the timed conversation with the one after it (the
warm-up conversation), read from LoCoMo."""

from __future__ import annotations

import argparse

from graphmem.cli.eval import set_torch_threads
from graphmem.conversations import Conversation, read_locomo
from graphmem.datasets import resolve


def parser(description: str, rounds: int) -> argparse.ArgumentParser:
    """An argument parser with ``--data``, ``--conversation``, ``--rounds`` (default ``rounds``)
    and ``--torch-threads``; the caller adds its own options."""
    out = argparse.ArgumentParser(description=description)
    out.add_argument("--data", default=None, help="datasets folder (default: bundled sample)")
    out.add_argument("--conversation", type=int, default=0, help="index of the timed conversation")
    out.add_argument("--rounds", type=int, default=rounds)
    out.add_argument("--torch-threads", type=int, default=1, help="0 = torch default")
    return out


def conversations(args: argparse.Namespace) -> tuple[Conversation, Conversation]:
    """Set torch's threads from ``args`` and read LoCoMo (the full dataset when ``--data`` is
    given, else the bundled sample): the timed conversation and the warm-up one after it."""
    set_torch_threads(args.torch_threads)
    convs = read_locomo(resolve("locomo", args.data, full=args.data is not None))
    return convs[args.conversation], convs[(args.conversation + 1) % len(convs)]

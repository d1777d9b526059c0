"""Asking several memories at once: a recall spends most of its time waiting for Neo4j (the
driver releases the GIL) or for the model (torch releases it), so running the memories of one
question side by side costs about the slowest of them rather than their sum."""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Worker threads shared by every caller of :func:`run_all` in the process.
WORKERS = 4

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """The process-wide worker pool (created on first use)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="graphmem-recall")
        return _pool


def run_all(calls: Sequence[Callable[[], T]]) -> list[T]:
    """Run ``calls`` at once and return their results in the order given: the first in the
    caller's thread, the others in the shared worker pool, each in a copy of the caller's
    context (``contextvars``: the current trace span is their parent). Every call is waited
    for; the first error (in the order given) is raised after all of them ended.

    Raises:
        Whatever a call raises.
    """
    futures = [_executor().submit(contextvars.copy_context().run, call) for call in calls[1:]]
    first: BaseException | None = None
    results: list[T] = []
    if calls:
        try:
            results.append(calls[0]())
        except BaseException as exc:  # wait for the others before raising
            first = exc
    for future in futures:
        try:
            results.append(future.result())
        except BaseException as exc:
            first = first or exc
    if first is not None:
        raise first
    return results


def ask_all(embedder: Any, question: str, calls: Sequence[Callable[[], T]]) -> list[T]:
    """:func:`run_all` of several memories' answers to one ``question``: with more than one call
    the question is embedded first, once (``embedder.embed_query``; the memories then read its
    vector from the embedder's query cache instead of each encoding it).

    Raises:
        Whatever the embedder or a call raises.
    """
    if len(calls) > 1:
        embedder.embed_query(question)
    return run_all(calls)

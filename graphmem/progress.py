"""One progress convention for every long step (ingest, replay, build), counted per input unit
(turns, tasks, claims).

:func:`track` is a context manager that yields a :class:`Tracker`; the tracker is the
``progress(n)`` callback the memories' ``ingest(..., progress=...)`` accept. In a terminal it
draws a rich bar on stderr; when stderr is not a terminal (piped, logged) it writes one line at
most every :data:`LINE_SECONDS` seconds or every 10 % of the total, whichever comes first.

The tracker of the step that is running is kept in :data:`current`, so that an interruption
(Ctrl-C) can say what was committed before it. A progress count is only a lower bound of that
(the callback runs after a commit, and an interruption may land between the two), so a step
that can ask the database wraps its work in :meth:`Tracker.counting`: on an interruption the
tracker asks the database how many units it holds and keeps that answer in
:attr:`Tracker.committed`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

logger = logging.getLogger(__name__)

#: Seconds between two one-line updates when the output is not a terminal.
LINE_SECONDS = 5.0

#: Trackers of the steps running now (innermost last).
current: list[Tracker] = []
#: Trackers of the steps an exception (e.g. Ctrl-C) left, innermost first.
interrupted: list[Tracker] = []


class Tracker:
    """Counts finished input units of one step; call it with ``n`` units done since the last
    call (the memories' ``progress`` callback).

    Attributes:
        description: what the step does (``"ingest"``, ``"replay fever"``).
        unit: the input unit, singular (``"turn"``, ``"task"``, ``"claim"``).
        total: units expected, or None when unknown.
        done: units finished so far (reported by the progress callback).
        committed: units the database holds, asked after an interruption inside
            :meth:`counting`; None when it was not asked (or could not answer).
    """

    def __init__(self, description: str, unit: str, total: int | None, console: Console,
                 bar: Progress | None):
        self.description, self.unit, self.total = description, unit, total
        self.done = 0
        self.committed: int | None = None
        self.began = time.monotonic()
        self._console, self._bar = console, bar
        self._task = bar.add_task(description, total=total) if bar is not None else None
        self._last_line, self._last_done = self.began, -1
        self._last_fraction = 0.0

    def __call__(self, n: int = 1) -> None:
        self.done += int(n)
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)
            return
        now = time.monotonic()
        fraction = self.done / self.total if self.total else 0.0
        if now - self._last_line >= LINE_SECONDS or fraction - self._last_fraction >= 0.1 - 1e-9:
            self._last_fraction = fraction
            self.line()

    @contextmanager
    def counting(self, committed: Callable[[], int]) -> Iterator[None]:
        """Within the block, an exception (Ctrl-C included) first sets :attr:`committed` to
        ``committed()`` (the database's count of the step's units that are stored), then
        leaves unchanged. A failing count (the database gone, a second Ctrl-C) leaves
        :attr:`committed` None.

        Args:
            committed: asks the database how many of this step's input units it holds.
        """
        try:
            yield
        except BaseException:
            try:
                self.committed = int(committed())
            except BaseException as exc:  # noqa: BLE001 - the first exception is the one to raise
                logger.warning("%s: could not count what was committed: %s", self.description,
                               exc)
            raise

    def heartbeat(self, stop: threading.Event) -> None:
        """Write a line every :data:`LINE_SECONDS` without news (loading, a long batch), so a
        log shows the step is alive; runs until ``stop`` is set."""
        while not stop.wait(1.0):
            if time.monotonic() - self._last_line >= LINE_SECONDS:
                self.line()

    def units(self, n: int | None = None) -> str:
        """``"12 turns"``: ``n`` (default :attr:`done`) with the unit, plural when needed."""
        n = self.done if n is None else n
        return f"{n} {self.unit}{'' if n == 1 else 's'}"

    def status(self) -> str:
        """``"12 of 40 turns"`` (or ``"12 turns"`` when the total is unknown)."""
        if self.total is None:
            return self.units()
        return f"{self.done} of {self.units(self.total)}"

    def line(self) -> None:
        """Write one plain progress line (the non-terminal form)."""
        self._last_line, self._last_done = time.monotonic(), self.done
        percent = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        self._console.print(f"{self.description}: {self.status()}{percent}, "
                            f"{time.monotonic() - self.began:.0f} s", highlight=False)


def quiet_model_loading() -> None:
    """Silence the progress bars and info logs of transformers / huggingface_hub (e.g.
    ``Loading weights 0/103``) for a process that draws its own progress. Call it before the
    embedding model loads; it only sets environment variables unless the libraries are loaded."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    import sys

    if "transformers" in sys.modules:
        from transformers.utils import logging as tlog

        tlog.set_verbosity_error()
        tlog.disable_progress_bar()
    if "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()


@contextmanager
def track(description: str, *, unit: str = "item", total: int | None = None,
          console: Console | None = None, disable: bool = False) -> Iterator[Tracker]:
    """Show the progress of one step; yields the ``progress(n)`` callback.

    Args:
        description: what the step does, shown before the count.
        unit: the input unit, singular.
        total: units expected (None: a count without a bar's end).
        console: where to draw (default: a stderr console).
        disable: count silently (``--json`` output).
    """
    console = console or Console(stderr=True)
    live = console.is_terminal and not disable
    bar = None
    if live:
        bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TextColumn(unit + "s"), TimeElapsedColumn(), TimeRemainingColumn(),
                       console=console, transient=False)
        bar.start()
    tracker = Tracker(description, unit, total, console, bar)
    if disable:
        tracker._bar = None
        tracker.line = lambda: None  # type: ignore[method-assign]
    stop = threading.Event()
    if not disable and not live:
        tracker.line()
        threading.Thread(target=tracker.heartbeat, args=(stop,), daemon=True,
                         name=f"progress {description}").start()
    current.append(tracker)
    try:
        yield tracker
    except BaseException:
        interrupted.append(tracker)
        raise
    finally:
        stop.set()
        current.remove(tracker)
        if not disable and not live and tracker._last_done != tracker.done:
            tracker.line()
        if bar is not None:
            bar.stop()
        logger.info("%s: %s in %.1f s", description, tracker.status(),
                    time.monotonic() - tracker.began)

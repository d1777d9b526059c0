"""State memory's typed recall options (:class:`~graphmem.recall_options.RecallOptions`)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from graphmem.recall_options import ArchiveWindowOptions


class StateRecallOptions(ArchiveWindowOptions):
    """Options of :meth:`graphmem.state.memory.StateMemory.recall` (EMIR² §3.3): the round
    budget, an optional planner, and the time window, instant and archived units of
    :class:`~graphmem.recall_options.ArchiveWindowOptions`."""

    memory = "state"

    max_rounds: int = Field(2, ge=1, le=8, strict=True,
                            description="round budget including the first (1..8)")
    planner: Any | None = Field(None, description="a planner deciding the next round "
                                "(graphmem.state.planner); None: the memory's own")

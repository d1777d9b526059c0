"""Associative memory's typed recall options (:class:`~graphmem.recall_options.RecallOptions`)."""

from __future__ import annotations

from pydantic import Field

from graphmem.associative.models import Structure
from graphmem.associative.reconstruction import ReconstructionConfig
from graphmem.recall_options import ArchiveWindowOptions


class AssociativeRecallOptions(ArchiveWindowOptions):
    """Options of :meth:`graphmem.associative.memory.AssociativeMemory.recall` (MRAgent
    sections 4 and 6): the round budget, the graph structure, the reconstruction configuration,
    and the time window, instant and archived units of
    :class:`~graphmem.recall_options.ArchiveWindowOptions`."""

    memory = "associative"

    max_rounds: int | None = Field(None, ge=1, le=20, strict=True,
                                   description="round budget, the seed included (1..20; None: "
                                   "the config's steps + 1)")
    structure: Structure | None = Field(None, description="graph structure: ce, cte or ctc "
                                        "(None: the memory's)")
    config: ReconstructionConfig | None = Field(None, description="reconstruction settings "
                                                "(None: the memory's)")

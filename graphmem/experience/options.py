"""Experience memory's typed recall options (:class:`~graphmem.recall_options.RecallOptions`)."""

from __future__ import annotations

from pydantic import Field

from graphmem.recall_options import MAX_K, TimeWindowOptions


class ExperienceRecallOptions(TimeWindowOptions):
    """Options of :meth:`graphmem.experience.memory.ExperienceMemory.recall` (EMG eq. 7): the
    incident SIMILAR_TASK edges per task, whether to add stored rules, and the time window and
    instant of :class:`~graphmem.recall_options.TimeWindowOptions`."""

    memory = "experience"

    t: int = Field(2, ge=0, le=MAX_K, strict=True,
                   description="SIMILAR_TASK edges per task, T of eq. 7 (0..200)")
    with_rules: bool = Field(True, strict=True,
                             description="add each task's workflow decisions and correction rules")

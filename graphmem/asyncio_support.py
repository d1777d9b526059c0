"""Async counterparts of the recall calls.

The memories talk to Neo4j through the synchronous driver and embed with a CPU model, so the
async API runs the same ``recall`` in a worker thread (:func:`asyncio.to_thread`): the event loop
is never blocked, and several recalls (e.g. of the four memories) can run concurrently.

    result = await mem.state.arecall("When did Caroline go to the support group?", k=5)
"""

from __future__ import annotations

import asyncio
from typing import Any


class AsyncRecall:
    """Mixin adding ``arecall`` to a memory class that has a synchronous ``recall``."""

    async def arecall(self, *args: Any, **kwargs: Any) -> Any:
        """``await``-able :meth:`recall`: same arguments, same result, same errors; runs in a
        worker thread (context variables, e.g. callbacks, are copied)."""
        return await asyncio.to_thread(self.recall, *args, **kwargs)  # type: ignore[attr-defined]

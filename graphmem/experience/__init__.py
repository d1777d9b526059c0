"""Experience memory: the Experience Memory Graph (EMG, seed 001_6abcc7bbf286629b).

Trajectories -> action decision graphs (Algorithm 1) -> FGW matching (eqs. 3, 4) -> common
subgraphs and graph edit paths (Algorithms 2, 3) -> intra/cross-task insights (eqs. 5, 6) in
Neo4j -> recall (eq. 7).
"""

from graphmem.experience.memory import (
    BuildReport,
    ExperienceMemory,
    RecallResult,
    recommended_decisions,
)
from graphmem.experience.trajectories import Trajectory, read_trajectories

__all__ = ["ExperienceMemory", "BuildReport", "RecallResult", "Trajectory", "read_trajectories",
           "recommended_decisions", "build_from_files"]


def build_from_files(runner, embedder, namespace: str, experts, explorations=None,
                     limit: int | None = None, k: int = 3, tau: float = 0.5, llm=None):
    """Build an experience memory from files in one call (see
    :meth:`ExperienceMemory.build_from_files`); returns ``(memory, BuildReport)``."""
    memory = ExperienceMemory(runner=runner, embedder=embedder, namespace=namespace, llm=llm)
    return memory, memory.build_from_files(experts, explorations, limit=limit, k=k, tau=tau)

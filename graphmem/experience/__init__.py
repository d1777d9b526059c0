"""Experience memory: the Experience Memory Graph (EMG, seed 001_6abcc7bbf286629b).

Trajectories -> action decision graphs (Algorithm 1) -> FGW matching (eqs. 3, 4) -> common
subgraphs and graph edit paths (Algorithms 2, 3) -> intra/cross-task insights (eqs. 5, 6) in
Neo4j -> recall (eq. 7).

    mem = ExperienceMemory(runner, embedder, "alfworld")
    mem.ingest_files("experts.jsonl", "explorations.jsonl", k=3, tau=0.5)
    result = mem.recall("put a clean mug in the coffee machine", k=3, t=2)
"""

from graphmem.experience.memory import (
    ExperienceItem,
    ExperienceMemory,
    recommended_decisions,
    task_text,
)
from graphmem.experience.trajectories import Trajectory, read_trajectories

__all__ = ["ExperienceItem", "ExperienceMemory", "Trajectory", "read_trajectories",
           "recommended_decisions", "task_text"]

"""Database I/O of the experience memory: named Cypher queries in ``cypher/experience/``,
pydantic models in and out. Every query is scoped by the namespace."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel

from graphmem.graph.runner import QueryRunner
from graphmem.names import validate_namespace

logger = logging.getLogger(__name__)


class RecalledTask(BaseModel):
    """A Task node found for a query; ``similarity`` is cosine in [-1, 1]."""

    id: str
    task_key: str
    query: str
    task_type: str | None = None
    reward: float | None = None
    intra_insight: str | None = None
    intra_renderer: str | None = None
    has_exploration: bool | None = None
    similarity: float


class CrossInsight(BaseModel):
    """A SIMILAR_TASK edge of a recalled task (eq. 7): the neighbour, the edge's similarity
    ``s_ij`` and the neighbour's similarity to the query (both cosine in [-1, 1])."""

    neighbour_id: str
    neighbour_key: str
    neighbour_query: str
    neighbour_similarity: float
    similarity: float
    insight: str | None = None
    renderer: str | None = None
    rules: list[dict[str, str]] = []


def _cosine(score: float) -> float:
    """Neo4j reports cosine similarity as ``(1 + cos) / 2``; convert back to cosine."""
    return 2.0 * float(score) - 1.0


class ExperienceStore:
    """Reads and writes of the experience memory by query name.

    Args:
        runner: the query runner.
        namespace: tenant scope (validated).
    """

    def __init__(self, runner: QueryRunner, namespace: str):
        self.runner = runner
        self.namespace = validate_namespace(namespace)

    def write_unit(self, tasks: list[dict], graphs: list[dict], actions: list[dict],
                   edges: list[dict], edits: list[dict]) -> tuple[dict[str, int], int]:
        """Write tasks with their decision graphs and edit operations in ONE transaction.

        Returns:
            (nodes created by label from the write answers, tasks that were already stored).
        """
        ns = self.namespace
        steps: list[tuple[str, dict[str, Any]]] = [
            ("experience/merge_tasks", {"namespace": ns, "rows": tasks}),
            ("experience/merge_decision_graphs", {"namespace": ns, "rows": graphs}),
            ("experience/merge_actions", {"namespace": ns, "rows": actions}),
            ("experience/merge_decided_edges", {"namespace": ns, "rows": edges}),
        ]
        if edits:
            steps.append(("experience/merge_edit_operations", {"namespace": ns, "rows": edits}))
        answers = self.runner.write_many(steps)
        labels = {"experience/merge_tasks": "Task", "experience/merge_decision_graphs": "DecisionGraph",
                  "experience/merge_actions": "Action",
                  "experience/merge_edit_operations": "EditOperation"}
        created: dict[str, int] = {}
        for (name, _params), rows in zip(steps, answers, strict=True):
            if name in labels:
                created[labels[name]] = sum(int(r["created"]) for r in rows)
        logger.debug("experience write unit: %d tasks, created %s", len(tasks), created)
        return created, len(tasks) - created["Task"]

    def write_similar(self, rows: list[dict]) -> None:
        """Write SIMILAR_TASK edges (one transaction)."""
        if rows:
            self.runner.write("experience/merge_similar_tasks", namespace=self.namespace, rows=rows)

    def find_tasks(self, embedding: list[float], k: int,
                   window: dict[str, int | None] | None = None) -> list[RecalledTask]:
        """Top-``k`` tasks by cosine, best first, ties by id: an exact scan of the namespace's
        own tasks (a vector-index top list filtered by namespace afterwards would depend on
        other namespaces' tasks). ``window``: ``{"since", "until"}`` in epoch microseconds
        (:func:`graphmem.timeparse.window_params`; None: open) on the tasks' ``created_at``."""
        rows = self.runner.read("experience/find_tasks", namespace=self.namespace,
                                embedding=embedding, k=k, **(window or {"since": None, "until": None}))
        return [RecalledTask(**{**r, "similarity": _cosine(r.pop("score"))}) for r in rows]

    def find_neighbours(self, task_ids: list[str], embedding: list[float], t: int,
                        window: dict[str, int | None] | None = None) -> dict[str, list[CrossInsight]]:
        """For each task id, its top-``t`` SIMILAR_TASK edges by neighbour similarity to the
        query (neighbours inside ``window`` only, as :meth:`find_tasks`)."""
        rows = self.runner.read("experience/find_task_neighbours", namespace=self.namespace,
                                task_ids=task_ids, embedding=embedding, t=t,
                                **(window or {"since": None, "until": None}))
        out: dict[str, list[CrossInsight]] = {tid: [] for tid in task_ids}
        for row in rows:
            for e in row["edges"]:
                rules = [{"observation": o, "action_key": a, "action_raw": r}
                         for o, a, r in zip(e.get("observations") or [], e.get("actions") or [],
                                            e.get("raw") or [])]
                out[row["task_id"]].append(CrossInsight(
                    neighbour_id=e["neighbour_id"], neighbour_key=e["neighbour_key"],
                    neighbour_query=e["neighbour_query"],
                    neighbour_similarity=_cosine(e["neighbour_score"]),
                    similarity=e["similarity"], insight=e["insight"], renderer=e["renderer"],
                    rules=rules))
        return out

    def find_rules(self, task_ids: list[str]) -> tuple[dict[str, list[dict]], dict[str, list[dict]]]:
        """``(workflow rules, edit operations)`` per task id, read from the stored graphs."""
        workflow: dict[str, list[dict]] = {tid: [] for tid in task_ids}
        for row in self.runner.read("experience/find_workflow_rules", namespace=self.namespace,
                                    task_ids=task_ids):
            workflow[row.pop("task_id")].append(row)
        edits: dict[str, list[dict]] = {tid: [] for tid in task_ids}
        for row in self.runner.read("experience/find_correction_rules", namespace=self.namespace,
                                    task_ids=task_ids):
            edits[row.pop("task_id")].append(row)
        return workflow, edits

    def counts(self) -> dict[str, int]:
        """Counts of tasks, graphs, actions, edit operations, SIMILAR_TASK and DECIDED edges."""
        return self.runner.read("experience/count_memory", namespace=self.namespace)[0]

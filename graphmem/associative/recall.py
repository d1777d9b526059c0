"""The active reconstruction loop of the associative memory (MRAgent §4 / §6) on top of the retrieval
engine: the seed round is :class:`graphmem.retrieval.HybridSearch` over the namespace's Episodes;
each reconstruction round is ONE read query (``cypher/associative/reconstruct_round.cypher``:
cue activation, cue -> tag, cue + tag -> content) whose paths give the contents of ``H`` the graph
step of :mod:`graphmem.associative.reconstruction`; the engine then re-ranks ``H`` (no query)."""

from __future__ import annotations

import logging
from typing import Any

from graphmem.associative.models import RoundTrace
from graphmem.associative.reconstruction import (
    ReconstructionConfig,
    ReconstructionState,
    specificity,
    tag_relevance,
)
from graphmem.associative.routing import RouteDecision, TagCandidate
from graphmem.memory import PathStep
from graphmem.retrieval import Candidate, HybridSearch

logger = logging.getLogger(__name__)


class Reconstructor:
    """Runs the rounds of one reconstruction over one namespace's graph.

    Args:
        runner: the query runner.
        namespace: the tenant.
        search: the engine that ran the seed round (its row is re-ranked each round).
    """

    def __init__(self, runner: Any, namespace: str, search: HybridSearch):
        self.runner = runner
        self.namespace = namespace
        self.search = search

    def run(self, question: str, cue_texts: list[str], row: dict[str, Any], terms: list[str],
            cfg: ReconstructionConfig, router: Any, trace: list[RoundTrace],
            ranked: list[Candidate]) -> tuple[list[Candidate], ReconstructionState, str]:
        """Rounds 2..``cfg.steps + 1`` after the seed round ``ranked`` (``cfg.pool`` candidates of the seed
        round); appends one :class:`RoundTrace` per round to ``trace``. Returns the re-ranked
        pool, the state (graph step, paths, semantic units per episode) and the stop reason
        (``step_budget``, ``no_new_evidence``, ``no_new_cues``, ``llm_sufficient``)."""
        state = ReconstructionState()
        total = int(row.get("n_units") or 0)
        in_h = {u["id"] for u in row.get("units") or []}
        sources: list[str] = []
        expanded: set[str] = set()
        stop_reason = "step_budget"
        for round_no in range(2, cfg.steps + 2):
            record = RoundTrace(round=round_no)
            rows = self.runner.read(
                "associative/reconstruct_round", namespace=self.namespace,
                cue_texts=cue_texts if round_no == 2 else [], source_ids=sources,
                skip_cues=sorted(state.visited_cues), skip_tags=sorted(state.followed_tags),
                terms=sorted(set(terms)), max_cue_contents=max(1, int(cfg.hub_share * total)),
                tags_per_cue=cfg.tags_per_cue, contents_per_tag=cfg.contents_per_tag)
            excess = self._excess()
            question_excess = max(excess.values(), default=0.0)
            cues = self._activate(rows, state, total, cfg, round_no, sources)
            record.active_cues = [c["cue_text"] for c in cues]
            candidates = [TagCandidate(cue_id=c["cue_id"], cue_text=c["cue_text"], tag_id=t["id"],
                                       tag_text=t["text"], relevance=tag_relevance(t["words"], terms),
                                       contents=len(t["contents"]),
                                       score=c["weight"] * tag_relevance(t["words"], terms))
                          for c in cues for t in c["tags"]]
            record.candidates = {"cue_to_tag": len(candidates)}
            decision = (router.route(question, ranked[:cfg.stop_top_k], candidates) if candidates
                        else RouteDecision(tag_ids=[], reason="no tag to route"))
            chosen = set(decision.tag_ids)
            record.selected_tags = [f"{c.cue_text} -> {c.tag_text}" for c in candidates
                                    if c.tag_id in chosen]
            state.followed_tags.update(chosen)
            before = [c.id for c in ranked[:cfg.stop_top_k]]
            reached = 0
            for cue in cues:
                x = question_excess if cue["source"] == "question" else excess.get(cue["source"], 0.0)
                value = cfg.graph_weight * cue["weight"] * x
                for tag in cue["tags"]:
                    if tag["id"] not in chosen:
                        continue
                    for content in tag["contents"]:
                        reached += 1
                        if cfg.structure == "cte" and content["kind"] != "episode":
                            continue
                        target = content.get("episode_id")
                        if target not in in_h:
                            continue
                        if content["kind"] == "semantic_unit":
                            facts = state.facts.setdefault(target, [])
                            if content["text"] not in facts:
                                facts.append(content["text"])
                        path = [*cue["path"],
                                PathStep(action="cue_to_tag", node="tag", id=tag["id"],
                                         text=tag["text"]),
                                PathStep(action="cue_tag_to_content", node=content["kind"],
                                         id=content["id"], text=(content["text"] or "")[:80])]
                        state.reach(target, value, cue["source"], path)
            record.candidates["cue_tag_to_content"] = reached
            ranked = self.search.rank(row, terms, cfg.pool, graph=state.graph, graph_paths=state.paths)
            after = [c.id for c in ranked[:cfg.stop_top_k]]
            record.new_evidence = [i for i in after if i not in before]
            sources = [c.id for c in ranked[:cfg.backward_from] if c.id not in expanded]
            expanded.update(sources)
            record.new_cues = []
            if decision.sufficient:
                stop_reason = "llm_sufficient"
            elif not cues:
                stop_reason = "no_new_cues"
            elif not record.new_evidence and round_no > 2:
                stop_reason = "no_new_evidence"
            else:
                stop_reason = "step_budget" if round_no == cfg.steps + 1 else ""
            record.stop = bool(stop_reason)
            record.stop_reason = stop_reason or None
            trace.append(record)
            logger.debug("associative round %d: %d cues, %d tags followed, %d new in top %d",
                         round_no, len(cues), len(chosen), len(record.new_evidence), cfg.stop_top_k)
            if record.stop:
                break
        return ranked, state, stop_reason or "step_budget"

    def _excess(self) -> dict[str, float]:
        """Each pooled unit's fused excess over the median (the graph step's ``x_m``)."""
        median = self.search.last_median
        return {f.id: max(0.0, f.fused - median) for f in self.search.last_fused}

    @staticmethod
    def _activate(rows: list[dict[str, Any]], state: ReconstructionState, total: int,
                  cfg: ReconstructionConfig, round_no: int,
                  sources: list[str]) -> list[dict[str, Any]]:
        """The cues of this round with weight ``w(c)`` and path, at most ``cfg.cue_beam`` backward
        cues (by weight), each cue once (a question match wins over a backward one)."""
        best: dict[str, dict[str, Any]] = {}
        for r in rows:
            weight = specificity(int(r["contents"]), total)
            if weight <= 0 or r["cue_id"] in state.visited_cues:
                continue
            old = best.get(r["cue_id"])
            if old is not None and (old["source"] == "question" or old["weight"] >= weight):
                continue
            if r["source"] == "question":
                path = [PathStep(action="question_cue_text", node="cue", id=r["cue_id"],
                                 text=r["cue_text"])]
            else:
                path = [PathStep(action="content_to_cue", node="cue", id=r["cue_id"],
                                 text=r["cue_text"])]
            best[r["cue_id"]] = {**r, "weight": weight, "path": path}
        question = [c for c in best.values() if c["source"] == "question"]
        backward = sorted((c for c in best.values() if c["source"] != "question"),
                          key=lambda c: (-c["weight"], c["cue_id"]))[:cfg.cue_beam]
        chosen = question + backward
        state.visited_cues.update(c["cue_id"] for c in chosen)
        return chosen

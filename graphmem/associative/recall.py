"""The active reconstruction loop of the associative memory (MRAgent §4 / §6): cue activation,
cue -> tag routing, cue + tag -> content, themes, backward content -> cue, and the stop rule."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from graphmem.associative.models import RoundTrace
from graphmem.associative.reconstruction import (
    ActiveCue,
    ReconstructionConfig,
    ReconstructionState,
    backward_cue_weight,
    idf,
    select_top,
    tag_score,
)
from graphmem.associative.routing import TagCandidate
from graphmem.associative.store import AssociativeStore
from graphmem.memory import PathStep

logger = logging.getLogger(__name__)


class Reconstructor:
    """Runs the rounds of one reconstruction over one namespace's graph.

    Args:
        store: the namespace's :class:`AssociativeStore`.
    """

    def __init__(self, store: AssociativeStore):
        self.store = store

    def run(self, question: str, state: ReconstructionState, qv: list[float], q_vec: np.ndarray,
            total: int, cfg: ReconstructionConfig, router: Any,
            trace: list[RoundTrace]) -> str:
        """Rounds 1..``cfg.steps`` over ``state`` (already seeded); appends one
        :class:`RoundTrace` per round to ``trace`` and returns the stop reason
        (``no_new_evidence``, ``no_new_cues``, ``llm_sufficient`` or ``step_budget``)."""
        stop_reason = "step_budget"
        for round_no in range(1, cfg.steps + 1):
            record = RoundTrace(round=round_no,
                                active_cues=[c.text for c in state.active_cues.values()])
            threshold = state.kth_score(cfg.stop_top_k)
            new_ids: list[str] = []
            sufficient = False
            if cfg.structure == "ce":
                new_ids += self._expand_ce(state, qv, round_no, cfg, record)
            else:
                added, sufficient = self._expand_tags(question, state, qv, round_no, cfg, router,
                                                      record)
                new_ids += added
            if sufficient and round_no > 1:
                record.stop, record.stop_reason = True, "llm_sufficient"
                trace.append(record)
                stop_reason = "llm_sufficient"
                break
            if cfg.structure == "ctc" and cfg.themes:
                new_ids += self._expand_themes(state, q_vec, qv, round_no, cfg, record, new_ids)
            record.new_evidence = new_ids
            entering = [i for i in new_ids if state.evidence[i].score >= threshold]
            state.active_cues = {}
            record.new_cues = self._backward(state, qv, new_ids, total, cfg, record)
            if sufficient:
                record.stop, record.stop_reason = True, "llm_sufficient"
                stop_reason = "llm_sufficient"
            elif not entering:
                record.stop, record.stop_reason = True, "no_new_evidence"
                stop_reason = "no_new_evidence"
            elif not state.active_cues and cfg.structure != "ce":
                record.stop, record.stop_reason = True, "no_new_cues"
                stop_reason = "no_new_cues"
            elif round_no == cfg.steps:
                record.stop, record.stop_reason = True, "step_budget"
            trace.append(record)
            if record.stop:
                break
            logger.debug("associative round %d: %d new, stop=%s", round_no, len(record.new_evidence),
                         record.stop_reason)
        return stop_reason

    def _activate_question_cues(self, texts: list[str], cue_vecs: dict[str, np.ndarray],
                                state: ReconstructionState, total: int,
                                cfg: ReconstructionConfig) -> None:
        if not texts:
            return
        for row in self.store.find_cues_by_text(texts):
            step = PathStep(action="question_cue_text", node="cue", id=row["id"], text=row["text"])
            state.activate(ActiveCue(id=row["id"], text=row["text"], kind=row["kind"] or "keyword",
                                     weight=idf(row["contents"], total), path=[step]))
        matched = set(state.visited_cues)
        matched_texts = {c.text for c in state.active_cues.values()}
        texts = [t for t in texts if t not in matched_texts]
        if cfg.cue_vector_k and texts:
            vecs = np.stack([cue_vecs[t] for t in texts])
            rows = sorted(self.store.search_cues(vecs, cfg.cue_vector_k), key=lambda r: -r["score"])
            for row in rows:
                if row["score"] < cfg.cue_min_cosine or row["id"] in matched:
                    continue
                step = PathStep(action="question_cue_vector", node="cue", id=row["id"],
                                text=row["text"])
                state.activate(ActiveCue(id=row["id"], text=row["text"],
                                         kind=row["kind"] or "keyword",
                                         weight=row["score"] * idf(row["contents"], total),
                                         path=[step]))

    def _expand_ce(self, state: ReconstructionState, qv: list[float], round_no: int,
                   cfg: ReconstructionConfig, record: RoundTrace) -> list[str]:
        cues = state.active_cues
        rows = self.store.expand_cue_episodes(list(cues), qv, cfg.ce_per_cue)
        record.candidates["cue_to_content"] = len(rows)
        new: list[str] = []
        for row in rows:
            cue = cues[row["cue_id"]]
            path = [*cue.path, PathStep(action="cue_to_content", node="episode", id=row["id"],
                                        text=row["text"][:80])]
            ev, is_new = state.add_content(row, path, round_no, cfg.graph_weight, cue.id,
                                           cue.weight * max(0.0, row["score"]))
            if is_new:
                new.append(ev.id)
        return new

    def _expand_tags(self, question: str, state: ReconstructionState, qv: list[float],
                     round_no: int, cfg: ReconstructionConfig, router: Any,
                     record: RoundTrace) -> tuple[list[str], bool]:
        cues = state.active_cues
        tag_rows = self.store.expand_cue_tags(list(cues), qv, cfg.tags_per_cue)
        candidates = [
            TagCandidate(cue_id=r["cue_id"], cue_text=r["cue_text"], tag_id=r["tag_id"],
                         tag_text=r["tag_text"], cosine=r["score"], contents=r["contents"],
                         score=tag_score(cues[r["cue_id"]].weight, r["score"]))
            for r in tag_rows if r["tag_id"] not in state.followed_tags
        ]
        record.candidates["cue_to_tag"] = len(candidates)
        ranked = sorted(state.evidence.values(), key=lambda e: -e.score)
        decision = router.route(question, ranked, candidates)
        by_id = {c.tag_id: c for c in candidates}
        chosen = [by_id[t] for t in decision.tag_ids if t in by_id]
        record.selected_tags = [f"{c.cue_text} -> {c.tag_text}" for c in chosen]
        state.followed_tags.update(c.tag_id for c in chosen)
        pairs = [{"cue_id": c.cue_id, "tag_text": c.tag_text} for c in chosen]
        rows = self.store.expand_tag_contents(pairs, qv)
        if cfg.structure == "cte":
            rows = [r for r in rows if r["kind"] == "episode"]
        record.candidates["cue_tag_to_content"] = len(rows)
        tag_by_pair = {(c.cue_id, c.tag_text): c for c in chosen}
        new: list[str] = []
        for row in rows:
            tag = tag_by_pair[(row["cue_id"], row["tag_text"])]
            cue = cues[tag.cue_id]
            path = [*cue.path,
                    PathStep(action="cue_to_tag", node="tag", id=tag.tag_id, text=tag.tag_text),
                    PathStep(action="cue_tag_to_content", node=row["kind"], id=row["id"],
                             text=row["text"][:80])]
            ev, is_new = state.add_content(row, path, round_no, cfg.graph_weight, cue.id, tag.score)
            if is_new:
                new.append(ev.id)
        return new, decision.sufficient

    def _expand_themes(self, state: ReconstructionState, q_vec: np.ndarray, qv: list[float],
                       round_no: int, cfg: ReconstructionConfig, record: RoundTrace,
                       new_ids: list[str]) -> list[str]:
        themes: list[tuple[str, str, str]] = []  # (id, name, action)
        if round_no == 1:
            for row in self.store.search_themes(q_vec, cfg.themes):
                themes.append((row["id"], row["name"], "question_theme"))
        top_new = sorted(new_ids, key=lambda i: -state.evidence[i].score)[: cfg.backward_from]
        for row in self.store.find_content_themes(top_new):
            themes.append((row["id"], row["name"], "theme_to_episode"))
        picked: dict[str, tuple[str, str]] = {}
        for tid, name, action in themes:
            if tid not in state.visited_themes and tid not in picked and len(picked) < cfg.themes:
                picked[tid] = (name, action)
        state.visited_themes.update(picked)
        rows = self.store.expand_theme_episodes(list(picked), qv, cfg.episodes_per_theme)
        record.candidates["theme_to_episode"] = len(rows)
        new: list[str] = []
        for row in rows:
            name, _action = picked[row["theme_id"]]
            path = [PathStep(action="question_theme", node="theme", id=row["theme_id"], text=name),
                    PathStep(action="theme_to_episode", node="episode", id=row["id"],
                             text=row["text"][:80])]
            ev, is_new = state.add_content(row, path, round_no, cfg.graph_weight)
            if is_new:
                new.append(ev.id)
        return new

    def _backward(self, state: ReconstructionState, qv: list[float], new_ids: list[str],
                  total: int, cfg: ReconstructionConfig, record: RoundTrace) -> list[str]:
        if not cfg.cue_beam or not new_ids:
            return []
        top_new = sorted(new_ids, key=lambda i: -state.evidence[i].score)[: cfg.backward_from]
        rows = self.store.expand_content_cues(top_new, qv)
        record.candidates["content_to_cue"] = len(rows)
        best: dict[str, tuple[float, dict]] = {}
        for row in rows:
            if row["cue_id"] in state.visited_cues:
                continue
            weight = backward_cue_weight(row["score"], row["contents"], total, cfg.backward_decay)
            if row["cue_id"] not in best or weight > best[row["cue_id"]][0]:
                best[row["cue_id"]] = (weight, row)
        chosen = select_top(((k, v[0]) for k, v in best.items()), cfg.cue_beam)
        activated = []
        for cue_id in chosen:
            weight, row = best[cue_id]
            source = state.evidence[row["content_id"]]
            path = [*source.path[-1:],
                    PathStep(action="content_to_cue", node="cue", id=cue_id, text=row["cue_text"])]
            if state.activate(ActiveCue(id=cue_id, text=row["cue_text"], kind=row["kind"] or "keyword",
                                        weight=weight, path=path)):
                activated.append(row["cue_text"])
        return activated

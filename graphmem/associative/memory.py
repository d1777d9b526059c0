"""``AssociativeMemory``: MRAgent's Cue–Tag–Content graph in Neo4j and active reconstruction
over it (seed 003, sections 3–6).

    mem = AssociativeMemory(runner, embedder, namespace="locomo")
    mem.ingest_file("locomo-dev.json")
    result = mem.recall("What did Caroline research?", steps=3)
    result.evidence[0].text, result.evidence[0].path, result.trace
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError as PydanticValidationError

from graphmem.associative.extraction import HeuristicExtractor, LLMExtractor, normalise_cue
from graphmem.associative.models import (
    EpisodeInput,
    Evidence,
    IngestReport,
    PathStep,
    RecallResult,
    RoundTrace,
    Structure,
)
from graphmem.associative.reconstruction import (
    ActiveCue,
    ReconstructionConfig,
    ReconstructionState,
    backward_cue_weight,
    idf,
    rrf_fuse,
    select_top,
    tag_score,
)
from graphmem.associative.routing import HeuristicRouter, LLMRouter, TagCandidate
from graphmem.associative.store import AssociativeStore
from graphmem.associative.themes import group_themes
from graphmem.embeddings import Embedder
from graphmem.errors import EmptyTextError, InvalidInputError
from graphmem.graph.runner import QueryRunner
from graphmem.asyncio_support import AsyncRecall
from graphmem.llm import LLMAccounting, LLMUsage
from graphmem.names import node_id, validate_namespace

Progress = Callable[[int], None]


class AssociativeMemory(AsyncRecall, LLMAccounting):
    """Associative memory (MRAgent): construction of the Cue–Tag–Content graph and active
    multi-step reconstruction.

    Args:
        runner: the query runner.
        embedder: text embedder (``(n, d) float32`` unit rows; ``d`` = the vector indexes').
        namespace: tenant scope of every read and write.
        llm: optional langchain-core ``BaseChatModel``; with one, extraction and routing use it
            (structured output), without one the heuristic extractor and router run.
        config: reconstruction defaults (:class:`ReconstructionConfig`).
    Raises:
        InvalidInputError: a bad namespace.
    """

    def __init__(
        self,
        runner: QueryRunner,
        embedder: Embedder,
        namespace: str = "default",
        llm: Any | None = None,
        config: ReconstructionConfig | None = None,
    ):
        self.runner = runner
        self.embedder = embedder
        self.namespace = validate_namespace(namespace)
        self.llm = llm
        self.config = config or ReconstructionConfig()
        self.store = AssociativeStore(runner, self.namespace)
        self.heuristic = HeuristicExtractor()
        self._counts: dict[str, int] | None = None  # cached N for idf; reset by ingest

    @property
    def controller(self) -> str:
        """``"llm"`` with a chat model, else ``"heuristic"``."""
        return "heuristic" if self.llm is None else "llm"

    # ------------------------------------------------------------------ construction
    @staticmethod
    def episodes_of(conversation: Any) -> list[EpisodeInput]:
        """Episodes of a :class:`graphmem.conversation.Conversation` (one per turn, in order).

        Raises:
            EmptyTextError / InvalidInputError: a turn with empty text or ids.
        """
        out = []
        for i, turn in enumerate(conversation.turns):
            try:
                out.append(EpisodeInput(
                    conversation_id=conversation.id,
                    source_id=turn.source_id,
                    speaker=turn.speaker,
                    text=turn.text,
                    occurred_at=turn.timestamp,
                    session=str(turn.session),
                    position=i,
                ))
            except PydanticValidationError as exc:
                error = exc.errors()[0]
                where = f"conversation {conversation.id!r} turn {i} ({turn.source_id!r})"
                cls = EmptyTextError if "empty" in error["msg"] else InvalidInputError
                raise cls(f"{where}: {'.'.join(map(str, error['loc']))}: {error['msg']}") from exc
        return out

    def ingest_file(self, path: str | Path, fmt: str = "auto",
                    progress: Progress | None = None) -> IngestReport:
        """Read conversations with :func:`graphmem.conversation.read_conversations` and ingest them.

        Raises:
            InputFormatError: a malformed file (nothing is written).
        """
        from graphmem.conversation import read_conversations

        return self.ingest_conversations(read_conversations(path, fmt), progress=progress)

    def ingest_conversations(self, conversations: Sequence[Any],
                             progress: Progress | None = None) -> IngestReport:
        """Build the graph of each conversation; one transaction per conversation.

        Every input is validated before anything is written. Ids are deterministic, so a
        repeated ingest creates nothing new. ``progress(n)`` is called with the number of
        episodes done after each conversation.

        Raises:
            EmptyTextError, InvalidInputError: bad turns (naming them); ControllerError: the LLM
            extractor's output was invalid twice.
        """
        began = time.monotonic()
        batches = [self.episodes_of(c) for c in conversations]
        for conv, episodes in zip(conversations, batches, strict=True):
            if not episodes:
                raise InvalidInputError(f"conversation {conv.id!r} has no turns")
        usage = LLMUsage()
        extractor = self.heuristic if self.llm is None else LLMExtractor(self.llm, usage)
        report = IngestReport(namespace=self.namespace, extractor=extractor.name)
        for episodes in batches:
            rows = self._build_rows(episodes, extractor)
            self.store.write_graph(**rows)
            report.conversations += 1
            report.episodes += len(rows["episodes"])
            report.cues += len(rows["cues"])
            report.tags += len(rows["tags"])
            report.cue_tag_content_triples += len(rows["episode_links"]) + len(rows["semantic_links"])
            report.semantic_units += len({r["id"] for r in rows["semantic_units"]})
            report.themes += len(rows["themes"])
            if progress is not None:
                progress(len(episodes))
        self._counts = None
        report.seconds = round(time.monotonic() - began, 2)
        report.llm_calls = usage.calls
        report.llm_usage = self._account(usage)
        return report

    def _build_rows(self, episodes: list[EpisodeInput], extractor: Any) -> dict[str, list[dict]]:
        ns = self.namespace
        extractions = extractor.extract(episodes)
        episode_ids = [node_id(ns, "episode", e.conversation_id, e.source_id) for e in episodes]
        episode_vecs = self.embedder.embed_documents([e.content for e in episodes])

        cues: dict[str, dict] = {}
        tags: dict[str, dict] = {}
        episode_links: dict[tuple[str, str], dict] = {}
        semantic: list[dict] = []
        semantic_links: dict[tuple[str, str], dict] = {}

        def link(cue_text: str, kind: str, tag_text: str) -> str:
            cue_id = node_id(ns, "cue", cue_text)
            cues.setdefault(cue_id, {"id": cue_id, "text": cue_text, "kind": kind})
            tag_text = " ".join(tag_text.split())[:200]
            tag_id = node_id(ns, "tag", cue_id, tag_text)
            tags.setdefault(tag_id, {"id": tag_id, "cue_id": cue_id, "text": tag_text,
                                     "embed": f"{cue_text} | {tag_text}"})
            return tag_id

        for episode, eid, extraction in zip(episodes, episode_ids, extractions, strict=True):
            for cue in extraction.cues:
                if not normalise_cue(cue.cue):
                    continue
                tag_id = link(normalise_cue(cue.cue), cue.kind, cue.tag)
                episode_links[(tag_id, eid)] = {"tag_id": tag_id, "content_id": eid}
            for fact in extraction.semantic_units:
                sid = node_id(ns, "semantic_unit", normalise_cue(fact.text))
                semantic.append({"id": sid, "episode_id": eid, "text": fact.text, "kind": fact.kind,
                                 "conversation_id": episode.conversation_id})
                for cue in fact.cues:
                    if not normalise_cue(cue.cue):
                        continue
                    tag_id = link(normalise_cue(cue.cue), cue.kind, cue.tag)
                    semantic_links[(tag_id, sid)] = {"tag_id": tag_id, "content_id": sid}

        cue_rows = list(cues.values())
        tag_rows = list(tags.values())
        to_embed = ([r["text"] for r in cue_rows] + [r.pop("embed") for r in tag_rows]
                    + [r["text"] for r in semantic])
        vecs = self.embedder.embed_documents(to_embed) if to_embed else np.zeros((0, 1))
        for i, row in enumerate(cue_rows + tag_rows + semantic):
            row["embedding"] = vecs[i].tolist()

        themes = group_themes(episode_vecs, [e.text for e in episodes], self.heuristic.key_phrases)
        conv_id = episodes[0].conversation_id
        theme_rows = [
            {"id": node_id(ns, "theme", conv_id, t.index), "name": t.name,
             "conversation_id": conv_id, "embedding": t.centroid,
             "episode_ids": [episode_ids[i] for i in t.members]}
            for t in themes
        ]
        episode_rows = [
            {"id": eid, "text": e.content, "speaker": e.speaker, "source_id": e.source_id,
             "conversation_id": e.conversation_id, "session": e.session, "position": e.position,
             "occurred_at": e.occurred_at.isoformat(), "embedding": episode_vecs[i].tolist()}
            for i, (e, eid) in enumerate(zip(episodes, episode_ids, strict=True))
        ]
        timeline = [{"previous": a, "next": b} for a, b in zip(episode_ids, episode_ids[1:])]
        return {
            "episodes": episode_rows,
            "timeline": timeline,
            "cues": cue_rows,
            "tags": tag_rows,
            "episode_links": list(episode_links.values()),
            "semantic_units": semantic,
            "semantic_links": list(semantic_links.values()),
            "themes": theme_rows,
        }

    def counts(self) -> dict[str, int]:
        """Node and relationship counts of this namespace's associative graph."""
        return self.store.counts()

    # ------------------------------------------------------------------ baseline
    def vector_search(self, question: str, k: int = 10) -> list[Evidence]:
        """Plain vector RAG over the raw turns (the baseline): the ``k`` Episodes closest to the
        question by cosine (same embedder, same Episode embeddings, same namespace).

        Raises:
            EmptyTextError: empty question.
        """
        if not isinstance(question, str) or not question.strip():
            raise EmptyTextError(f"question is empty: {question!r}")
        rows = self.store.search_episodes(self.embedder.embed_query(question), k)
        return [Evidence(id=r["id"], kind="episode", text=r["text"], source_ids=r["source_ids"],
                         conversation_id=r.get("conversation_id") or "",
                         occurred_at=r.get("occurred_at"), similarity=r["score"],
                         score=r["score"], rank_score=r["score"],
                         path=[PathStep(action="vector_seed", node="question", id="question",
                                        text=question)])
                for r in rows]

    # ------------------------------------------------------------------ reconstruction
    def recall(
        self,
        question: str,
        steps: int | None = None,
        structure: Structure | None = None,
        config: ReconstructionConfig | None = None,
    ) -> RecallResult:
        """Active multi-step reconstruction (MRAgent section 4 / 6).

        Start: question cues (heuristic extractor) matched to Cue nodes by normalised text and by
        vector; the top vector episodes seed ``H``. Each round: cue->tag (Cypher), route (LLM or
        heuristic), cue+tag->content (Cypher), theme->episodes (``ctc``), content->cue/tag
        backward to activate new cues, then the stop rule. Final order: reciprocal rank fusion
        of the vector ranking and the graph ranking (``fuse_vector``).

        Args:
            question: the question (non-empty).
            steps: step budget (rounds), default ``config.steps``.
            structure: ``ce`` (cue->episode), ``cte`` (cue-tag-episode), ``ctc`` (full graph).
            config: overrides the memory's :class:`ReconstructionConfig`.
        Raises:
            EmptyTextError: empty question. ControllerError: invalid LLM routing output twice.
        """
        if not isinstance(question, str) or not question.strip():
            raise EmptyTextError(f"question is empty: {question!r}")
        cfg = (config or self.config).model_copy()
        if steps is not None:
            cfg.steps = steps
        if structure is not None:
            cfg.structure = structure
        usage = LLMUsage()
        router = (HeuristicRouter(cfg.tag_beam) if self.llm is None
                  else LLMRouter(self.llm, usage))
        qcues = [c.cue for c in self.heuristic.question_cues(question)]
        vecs = self.embedder.embed_documents([question, *qcues])  # one model call
        q_vec, cue_vecs = vecs[0], dict(zip(qcues, vecs[1:], strict=True))
        qv = [float(x) for x in q_vec]
        if self._counts is None:
            self._counts = self.store.counts()
        counts = self._counts
        total = int(counts["episodes"]) + (int(counts["semantic_units"]) if cfg.structure == "ctc" else 0)
        state = ReconstructionState()
        q_step = PathStep(action="vector_seed", node="question", id="question", text=question)

        vector_rows = self.store.search_episodes(q_vec, cfg.vector_k)
        for row in vector_rows[: cfg.seed_k]:
            state.add_content(row, [q_step], 0, cfg.graph_weight)
        self._activate_question_cues(qcues, cue_vecs, state, total, cfg)
        trace: list[RoundTrace] = [RoundTrace(
            round=0, active_cues=[c.text for c in state.active_cues.values()],
            new_evidence=list(state.evidence), candidates={"vector_seed": len(vector_rows)},
        )]

        stop_reason = "step_budget"
        rounds = 0
        for round_no in range(1, cfg.steps + 1):
            rounds = round_no
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

        evidence = self._final_ranking(state, vector_rows, q_step, cfg)
        op = usage.operations.get("associative.route")
        return RecallResult(
            question=question, namespace=self.namespace, controller=self.controller,
            structure=cfg.structure, rounds=rounds, stop_reason=stop_reason,
            evidence=evidence[: cfg.max_evidence], trace=trace,
            llm_calls=usage.calls, llm_input_tokens=op.input_tokens if op else 0,
            llm_output_tokens=op.output_tokens if op else 0,
            llm_usage=self._account(usage),
        )

    # -- steps of a round ----------------------------------------------------------------
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

    def _final_ranking(self, state: ReconstructionState, vector_rows: list[dict],
                       q_step: PathStep, cfg: ReconstructionConfig) -> list[Evidence]:
        graph_ranked = sorted(state.evidence.values(), key=lambda e: (-e.score, e.id))
        if not cfg.fuse_vector:
            for e in graph_ranked:
                e.rank_score = e.score
            return graph_ranked
        pool = dict(state.evidence)
        for row in vector_rows:
            if row["id"] not in pool:
                pool[row["id"]] = Evidence(
                    id=row["id"], kind="episode", text=row["text"], source_ids=row["source_ids"],
                    conversation_id=row.get("conversation_id") or "",
                    occurred_at=row.get("occurred_at"), similarity=row["score"],
                    score=row["score"], round=0, path=[q_step])
        fused = rrf_fuse([[r["id"] for r in vector_rows], [e.id for e in graph_ranked]],
                         [1.0, cfg.graph_list_weight], cfg.rrf_k)
        for key, value in fused.items():
            pool[key].rank_score = value
        return sorted(pool.values(), key=lambda e: (-e.rank_score, e.id))

"""Construction of the associative graph (MRAgent §3): the query rows of one conversation,
built without I/O except the embedder."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from pydantic import ValidationError as PydanticValidationError

from graphmem.associative.extraction import normalise_cue
from graphmem.associative.models import EpisodeInput
from graphmem.associative.themes import group_themes
from graphmem.embeddings import Embedder
from graphmem.errors import EmptyTextError, InvalidInputError
from graphmem.names import node_id

logger = logging.getLogger(__name__)


def episodes_of(conversation: Any) -> list[EpisodeInput]:
    """Episodes of a :class:`graphmem.conversations.Conversation` (one per turn, in order).

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
                position=max(getattr(turn, "position", 0), i),
            ))
        except PydanticValidationError as exc:
            error = exc.errors()[0]
            where = f"conversation {conversation.id!r} turn {i} ({turn.source_id!r})"
            cls = EmptyTextError if "empty" in error["msg"] else InvalidInputError
            raise cls(f"{where}: {'.'.join(map(str, error['loc']))}: {error['msg']}") from exc
    return out


def build_rows(episodes: list[EpisodeInput], extractor: Any, embedder: Embedder, namespace: str,
               key_phrases: Any, *, theme_scope: str | None = None, min_theme_episodes: int = 1,
               ) -> dict[str, list[dict]]:
    """The rows of one conversation's Cue–Tag–Content graph (MRAgent §3, construction): episodes
    with embeddings, NEXT_EPISODE pairs, cues, tags (HAS_TAG), cue-tag-content triples
    (LEADS_TO to episodes and semantic units), semantic units (DERIVED_FROM) and themes (GROUPS).

    Args:
        episodes: the conversation's episodes in timeline order (non-empty).
        extractor: F_cue / F_tag (``extract(episodes) -> list[EpisodeExtraction]``).
        embedder: the text embedder.
        namespace: the tenant (ids are ``node_id(namespace, ...)``).
        key_phrases: ``key_phrases(texts, n)`` naming themes.
        theme_scope: extra id part of the themes (None: the conversation's themes; an
            incremental batch passes its first source id so its themes do not overwrite them).
        min_theme_episodes: fewer episodes than this make no themes (one-message adds).
    Returns:
        ``{"episodes", "timeline", "cues", "tags", "episode_links", "semantic_units",
        "semantic_links", "themes"}`` lists of query rows.
    Raises:
        ControllerError: the LLM extractor failed twice.
    """
    ns = namespace
    extractions = extractor.extract(episodes)
    episode_ids = [node_id(ns, "episode", e.conversation_id, e.source_id) for e in episodes]
    episode_vecs = embedder.embed_documents([e.content for e in episodes])

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
    vecs = embedder.embed_documents(to_embed) if to_embed else np.zeros((0, 1))
    for i, row in enumerate(cue_rows + tag_rows + semantic):
        row["embedding"] = vecs[i].tolist()

    themes = (group_themes(episode_vecs, [e.text for e in episodes], key_phrases)
              if len(episodes) >= min_theme_episodes else [])
    conv_id = episodes[0].conversation_id
    scope = (conv_id,) if theme_scope is None else (conv_id, theme_scope)
    theme_rows = [
        {"id": node_id(ns, "theme", *scope, t.index), "name": t.name,
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

"""Construction of the associative graph (MRAgent §3): the query rows of one conversation,
built without I/O except the embedder.

Each turn is encoded once, as its retrieval window (:func:`graphmem.retrieval.text.window_texts`:
the turn and a few words of its session neighbours), and a long turn's passages too
(:mod:`graphmem.retrieval.passages`: their vectors are stored on the episode beside its window
vector, in the same encode call); cues and tags are matched by text and carry no
vectors; a semantic unit takes the vector of the episode it is derived from and a theme the
centroid of its members. :func:`build_rows` gives everything that needs no vector and the texts to
encode; :func:`attach_vectors` adds the vector-dependent rows once the encoding is done, so the
caller can encode in the background while the rest is extracted and written.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import ValidationError as PydanticValidationError

from graphmem.associative.extraction import normalise_cue
from graphmem.associative.models import EpisodeInput
from graphmem.associative.themes import group_themes
from graphmem.errors import EmptyTextError, InvalidInputError
from graphmem.names import check_key, node_id
from graphmem.retrieval import unit_rows
from graphmem.retrieval.text import analyze
from graphmem.timeparse import time_param
from graphmem.validation import describe_validation_error

logger = logging.getLogger(__name__)

#: Cue kinds whose texts name a theme (times and actions name none).
THEME_CUE_KINDS = frozenset({"keyword", "entity"})


def episodes_of(conversation: Any) -> list[EpisodeInput]:
    """Episodes of a :class:`graphmem.conversations.Conversation` (one per turn, in order).

    Every turn passes :func:`graphmem.conversations.check_turn_fields` first (the limits every
    memory applies: ids, speaker and session are indexed keys, text at most ``MAX_TEXT_CHARS``).
    The stored content adds a ``"speaker: "`` prefix (:attr:`EpisodeInput.content`); the limit is
    the turn text's, never re-checked on the prefixed text.

    Raises:
        EmptyTextError / InvalidInputError: a turn with empty text, a bad id, speaker or
            session, or a text over the limit (naming the conversation, the turn and the field).
    """
    from graphmem.conversations.models import check_turn_fields

    check_key("conversation id", conversation.id)
    out = []
    for i, turn in enumerate(conversation.turns):
        where = f"conversation {conversation.id[:40]!r} turn {i} ({str(turn.source_id)[:40]!r})"
        check_turn_fields(where, source_id=turn.source_id, speaker=turn.speaker,
                          text=turn.text, session=str(turn.session))
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
            message = describe_validation_error(exc, where)
            cls = EmptyTextError if "empty" in message else InvalidInputError
            raise cls(message) from None
    return out


def _unit_turn(episode: EpisodeInput) -> dict[str, Any]:
    return {"speaker": episode.speaker, "text": episode.text, "timestamp": episode.occurred_at,
            "session": episode.session}


def _raw(text: str | None, speaker: str | None) -> str:
    """A stored episode text (``"speaker: text"``) back to the turn's own text."""
    text = str(text or "")
    prefix = f"{speaker}: " if speaker else ""
    return text[len(prefix):] if prefix and text.startswith(prefix) else text


def _stored_turn(row: dict[str, Any], text_key: str = "text",
                 speaker_key: str = "speaker") -> dict[str, Any]:
    return {"speaker": row.get(speaker_key) or "", "session": row.get("session"),
            "text": _raw(row.get(text_key), row.get(speaker_key)),
            "timestamp": row.get("occurred_at")}


def plan_units(episodes: list[EpisodeInput], namespace: str, before: dict[str, Any] | None = None,
               after: dict[str, Any] | None = None) -> dict[str, Any]:
    """The retrieval-unit rows of a batch and the texts to encode (pure, no vectors).

    Args:
        episodes: the batch's episodes in timeline order (non-empty).
        namespace: the tenant.
        before / after: the stored session neighbours of the batch's first / last episode (rows
            of ``associative/timeline_context``: ``id``, ``speaker``, ``text`` as stored, ``session``,
            ``occurred_at``, and ``other_text`` / ``other_speaker`` of their own other neighbour),
            or None. Each gets a ``refresh`` row (its new ``next_id`` / ``prev_id``) and its window
            re-encoded, so a conversation stored message by message, or by batches out of order,
            ends with the vectors and links of one stored at once.
    Returns:
        ``{"ids", "units", "refresh", "windows", "passage_texts", "passage_counts"}``: the
        episodes' node ids, one :func:`graphmem.retrieval.unit_rows` row each, the neighbours'
        refresh rows, the window texts (one per episode, then the before's and the after's when
        present), the passage texts of the episodes (in episode order; none for a short turn)
        and how many each episode has. A refreshed neighbour keeps its stored passages (they
        depend on its own text only).
    """
    episode_ids = [node_id(namespace, "episode", e.conversation_id, e.source_id) for e in episodes]
    turns = [_unit_turn(e) for e in episodes]
    ids = list(episode_ids)
    before = before if before is not None and before["session"] == episodes[0].session else None
    after = after if after is not None and after["session"] == episodes[-1].session else None
    head: list[dict[str, Any]] = []
    head_ids: list[str] = []
    if before is not None:
        if before.get("other_text"):
            head.append({**_stored_turn(before, "other_text", "other_speaker"),
                         "session": before["session"]})
            head_ids.append("-")
        head.append(_stored_turn(before))
        head_ids.append(before["id"])
    tail: list[dict[str, Any]] = []
    tail_ids: list[str] = []
    if after is not None:
        tail.append(_stored_turn(after))
        tail_ids.append(after["id"])
        if after.get("other_text"):
            tail.append({**_stored_turn(after, "other_text", "other_speaker"),
                         "session": after["session"]})
            tail_ids.append("-")
    units = unit_rows([*head, *turns, *tail], None, namespace=namespace,
                      ids=[*head_ids, *ids, *tail_ids])
    start = len(head)
    mine = units[start:start + len(episodes)]
    windows = [u["window_text"] for u in mine]
    refresh: list[dict[str, Any]] = []
    if before is not None:
        refresh.append({"id": before["id"], "next_id": episode_ids[0], "prev_id": None})
        windows.append(units[start - 1]["window_text"])
    if after is not None:
        refresh.append({"id": after["id"], "next_id": None, "prev_id": episode_ids[-1]})
        windows.append(units[start + len(episodes)]["window_text"])
    return {"ids": episode_ids, "units": mine, "refresh": refresh, "windows": windows,
            "passage_texts": [t for u in mine for t in u["passage_texts"]],
            "passage_counts": [len(u["passage_texts"]) for u in mine]}


def build_rows(episodes: list[EpisodeInput], extractor: Any, namespace: str,
               plan: dict[str, Any]) -> dict[str, Any]:
    """The vector-free rows of one batch of a conversation's Cue–Tag–Content graph (MRAgent §3,
    construction): episodes with the retrieval-unit properties of ``plan`` (:func:`plan_units`;
    ``embedding`` still None), NEXT_EPISODE pairs, cues, tags (HAS_TAG, with their analyzed
    ``terms``), cue-tag-content triples (LEADS_TO to episodes and semantic units) and semantic
    units (DERIVED_FROM).

    Returns:
        ``{"episodes", "timeline", "cues", "tags", "episode_links", "semantic_units",
        "semantic_links", "cue_contents", "refresh", "windows", "passage_spans",
        "passage_texts"}``: ``cue_contents`` the new episodes per cue (``[{"cue_id", "added"}]``,
        the cue's contents counter), ``refresh``, ``windows`` and ``passage_texts`` from
        ``plan``, ``passage_spans`` the flat spans of each episode in its stored text
        (``"speaker: text"``; written with its vectors, :func:`attach_vectors`).
    Raises:
        ControllerError: the LLM extractor failed twice.
    """
    ns = namespace
    extractions = extractor.extract(episodes)
    episode_ids = plan["ids"]
    units = plan["units"]

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
                                 "terms": " ".join(dict.fromkeys(analyze(tag_text)))})
        return tag_id

    for index, (episode, eid, extraction) in enumerate(zip(episodes, episode_ids, extractions,
                                                           strict=True)):
        for cue in extraction.cues:
            if not normalise_cue(cue.cue):
                continue
            tag_id = link(normalise_cue(cue.cue), cue.kind, cue.tag)
            episode_links[(tag_id, eid)] = {"tag_id": tag_id, "content_id": eid}
        for fact in extraction.semantic_units:
            sid = node_id(ns, "semantic_unit", normalise_cue(fact.text))
            semantic.append({"id": sid, "episode_id": eid, "episode": index, "text": fact.text,
                             "kind": fact.kind, "conversation_id": episode.conversation_id})
            for cue in fact.cues:
                if not normalise_cue(cue.cue):
                    continue
                tag_id = link(normalise_cue(cue.cue), cue.kind, cue.tag)
                semantic_links[(tag_id, sid)] = {"tag_id": tag_id, "content_id": sid}

    episode_rows = []
    for e, eid, unit in zip(episodes, episode_ids, units, strict=True):
        row = {key: value for key, value in unit.items()
               if key not in ("window_text", "embedding", "passage_spans", "passage_texts")}
        row.update(id=eid, text=e.content, speaker=e.speaker, source_id=e.source_id,
                   conversation_id=e.conversation_id, session=e.session, position=e.position,
                   occurred_at=time_param(e.occurred_at))
        episode_rows.append(row)
    timeline = [{"previous": a, "next": b} for a, b in zip(episode_ids, episode_ids[1:])]
    per_cue: dict[str, set[str]] = {}
    for tag_id, content_id in episode_links:
        per_cue.setdefault(tags[tag_id]["cue_id"], set()).add(content_id)
    cue_contents = [{"cue_id": cue_id, "added": len(found)} for cue_id, found in per_cue.items()]
    return {
        "episodes": episode_rows,
        "timeline": timeline,
        "cues": list(cues.values()),
        "tags": list(tags.values()),
        "episode_links": list(episode_links.values()),
        "semantic_units": semantic,
        "semantic_links": list(semantic_links.values()),
        "cue_contents": cue_contents,
        "refresh": plan["refresh"],
        "windows": plan["windows"],
        # spans into the stored text (``"speaker: text"``), as a recall item slices it
        "passage_spans": [[x + len(e.content) - len(e.text) for x in u["passage_spans"]]
                          for e, u in zip(episodes, units, strict=True)],
        "passage_texts": plan["passage_texts"],
    }


def relink_rows(ids: list[str], context: dict[str, Any], plan: dict[str, Any]) -> dict[str, list]:
    """``associative/relink_neighbours`` parameters attaching a batch (node ids ``ids``) between
    the stored episodes of ``context``: the NEXT_EPISODE link to the timeline's episode after it,
    the NEXT_TURN link to the session's episode after it, the direct edges between the episodes
    before and after it dropped, and the session's episode before it pointed at the batch."""
    unlink, link, point = [], [], []
    before, after = context["timeline_before"], context["timeline_after"]
    if after is not None:
        link.append({"rel": "NEXT_EPISODE", "previous": ids[-1], "next": after})
        if before is not None:
            unlink.append({"rel": "NEXT_EPISODE", "previous": before, "next": after})
    neighbours = {r["id"]: r for r in plan["refresh"]}
    s_before = context["session_before"]["id"] if context["session_before"] else None
    s_after = context["session_after"]["id"] if context["session_after"] else None
    if s_after in neighbours:
        link.append({"rel": "NEXT_TURN", "previous": ids[-1], "next": s_after})
        if s_before in neighbours:
            unlink.append({"rel": "NEXT_TURN", "previous": s_before, "next": s_after})
    if s_before in neighbours:
        point.append({"id": s_before, "next_id": ids[0], "prev_id": None})
    return {"unlink": unlink, "link": link, "point": point}


def episode_phrases(rows: dict[str, Any]) -> list[list[str]]:
    """Per episode of ``rows["episodes"]`` the texts of its keyword and entity cues, in extraction
    order (the names of its themes, :func:`graphmem.associative.themes.group_themes`)."""
    kind = {c["id"]: c["kind"] for c in rows["cues"]}
    text = {c["id"]: c["text"] for c in rows["cues"]}
    cue_of = {t["id"]: t["cue_id"] for t in rows["tags"]}
    index = {r["id"]: i for i, r in enumerate(rows["episodes"])}
    out: list[list[str]] = [[] for _ in rows["episodes"]]
    for link in rows["episode_links"]:
        i, cue = index.get(link["content_id"]), cue_of[link["tag_id"]]
        if i is not None and kind[cue] in THEME_CUE_KINDS and text[cue] not in out[i]:
            out[i].append(text[cue])
    return out


def attach_vectors(rows: dict[str, Any], vectors: np.ndarray, episodes: Sequence[EpisodeInput],
                   namespace: str, *, theme_scope: str | None = None,
                   min_theme_episodes: int = 1) -> dict[str, Any]:
    """The vector-dependent rows, once ``vectors`` (``(len(rows["windows"]) +
    len(rows["passage_texts"]), d) float32`` unit rows, the embeddings of ``rows["windows"]``
    then of ``rows["passage_texts"]``, in order) are known: ``embeddings`` (``[{"id",
    "embedding", "new", "passage_spans", "passage_embeddings"}]`` for every episode -- ``new``
    true, a long one's flat passage spans and vectors (passages × d floats), None for a short
    one -- and the refreshed tail, ``new`` false: its stored passages stay), semantic units with
    their episode's vector, and ``themes`` (k-means over the batch's episode vectors, MRAgent §4.3,
    named by :func:`episode_phrases`).

    Args:
        theme_scope: extra id part of the themes (None: the conversation's themes; an incremental
            batch passes its first source id so its themes do not overwrite them).
        min_theme_episodes: fewer episodes than this make no themes (one-message adds).
    Raises:
        InvalidInputError: a vector count different from the window and passage text count.
    """
    n_windows = len(rows["windows"])
    spans = rows.get("passage_spans") or [[] for _ in rows["episodes"]]
    if len(vectors) != n_windows + len(rows.get("passage_texts") or []):
        raise InvalidInputError(f"attach_vectors: {len(vectors)} vectors for {n_windows} window "
                                f"texts and {len(rows.get('passage_texts') or [])} passage texts")
    n = len(rows["episodes"])
    ids = [r["id"] for r in rows["episodes"]] + [r["id"] for r in rows["refresh"]]
    vectors = np.asarray(vectors, dtype=np.float32)
    embeddings = [{"id": i, "embedding": v, "new": k < n}
                  for k, (i, v) in enumerate(zip(ids, vectors[:n_windows].tolist(), strict=True))]
    start = n_windows
    for row, flat in zip(embeddings, spans, strict=False):  # the episodes come first
        count = len(flat) // 2
        block = vectors[start:start + count]
        start += count
        row["passage_spans"] = list(flat) if count else None
        row["passage_embeddings"] = block.ravel().tolist() if count else None
    semantic = [{**{k: v for k, v in s.items() if k != "episode"},
                 "embedding": embeddings[s["episode"]]["embedding"]} for s in rows["semantic_units"]]
    themes = (group_themes(vectors[:n], episode_phrases(rows))
              if n >= min_theme_episodes else [])
    conv_id = episodes[0].conversation_id
    scope = (conv_id,) if theme_scope is None else (conv_id, theme_scope)
    theme_rows = [
        {"id": node_id(namespace, "theme", *scope, t.index), "name": t.name,
         "conversation_id": conv_id, "embedding": t.centroid,
         "episode_ids": [rows["episodes"][i]["id"] for i in t.members]}
        for t in themes
    ]
    return {"embeddings": embeddings, "semantic_units": semantic, "themes": theme_rows}

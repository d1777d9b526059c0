"""Associative memory orchestration without a database (fake runner, hash embedder)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from fake_runner import FakeRunner, HashEmbedder, unit_columns

from graphmem.associative import AssociativeMemory
from graphmem.conversations import Conversation, Turn

WRITES = ["associative/lock_timeline", "associative/timeline_context",
          "associative/merge_episodes", "associative/link_episode_timeline",
          "associative/merge_cues", "associative/merge_tags", "associative/link_tag_episodes",
          "associative/count_cue_contents", "associative/relink_neighbours",
          "associative/set_episode_embeddings", "associative/merge_semantic_units",
          "associative/link_tag_semantic_units", "associative/merge_themes"]
ALONE = [{"timeline_before": None, "timeline_after": None, "session_before": None,
          "session_after": None, "stored": False}]


def _conversation() -> Conversation:
    texts = ["I went to the LGBTQ support group yesterday.", "My favourite book is Dune."]
    turns = [Turn(source_id=f"D1:{i + 1}", speaker="Caroline", text=t,
                  timestamp=datetime(2023, 5, 8, 13, i, tzinfo=timezone.utc), position=i)
             for i, t in enumerate(texts)]
    return Conversation(id="conv-1", speakers=["Caroline"], turns=turns)


def test_ingest_sends_one_transaction_and_reports_the_database_answer() -> None:
    runner = FakeRunner({"associative/timeline_context": ALONE,
                         "associative/lock_timeline": [{"created": 1}],
                         "associative/merge_episodes": [{"created": 2}],
                         "associative/merge_cues": [{"created": 5}],
                         "associative/merge_tags": [{"created": 6}],
                         "associative/merge_semantic_units": [{"created": 1}],
                         "associative/merge_themes": [{"created": 1}]})
    done: list[int] = []
    report = AssociativeMemory(runner, HashEmbedder(), "ns-unit").ingest(
        [_conversation()], progress=done.append)
    assert runner.transactions == [WRITES]
    assert runner.names()[0] == "associative/find_existing_episodes"
    assert report.created == {"Episode": 2, "Cue": 5, "Tag": 6, "SemanticUnit": 1, "Theme": 1,
                              "Timeline": 1}
    assert report.inputs == 2 and report.skipped == {} and done == [2]
    assert report.details["cue_tag_content_triples"] > 0
    episodes = dict(runner.calls)["associative/merge_episodes"]["rows"]
    assert [r["source_id"] for r in episodes] == ["D1:1", "D1:2"]
    assert [(r["prev_id"] is None, r["next_id"] is None) for r in episodes] == [(True, False),
                                                                              (False, True)]
    assert "lexical_terms" in episodes[0] and "embedding" not in episodes[0]
    vectors = dict(runner.calls)["associative/set_episode_embeddings"]["rows"]
    assert [r["id"] for r in vectors] == [r["id"] for r in episodes]
    counts = dict(runner.calls)["associative/count_cue_contents"]["rows"]
    assert counts and all(r["added"] >= 1 for r in counts)


def test_reingest_skips_a_stored_conversation() -> None:
    runner = FakeRunner({"associative/find_existing_episodes":
                         lambda params: [{"id": i} for i in params["ids"]]})
    report = AssociativeMemory(runner, HashEmbedder(), "ns-unit").ingest([_conversation()])
    assert runner.transactions == [] and report.created == {} and report.skipped == {"turn": 2}


def _unit(i: int) -> dict:
    return {"id": f"ep{i}", "text": f"Caroline: turn {i} pottery", "source_ids": [f"D1:{i}"],
            "lexical_terms": f"caroline turn {i} pottery", "speaker": "Caroline",
            "is_cue": False, "is_smalltalk": False, "prev_id": f"ep{i - 1}" if i else None,
            "next_id": f"ep{i + 1}" if i < 7 else None, "via_lexical": True, "via_dense": True,
            "dense": 0.9 - i / 100, "conversation": "conv-1", "occurred_at": None,
            "session": "s1", "topic_id": None}


def test_recall_cuts_at_k_and_numbers_rounds_from_the_seed() -> None:
    row = {"n_units": 8, "avg_length": 4.0, "dfs": [["caroline", 8], ["pottery", 8]],
           "dense_mode": "exact", "speakers": [["Caroline", 8]], "units": [unit_columns(_unit(i)) for i in range(8)]}
    cue = {"cue_id": "c1", "cue_text": "pottery", "kind": "keyword", "contents": 1,
           "source": "question",
           "tags": [{"id": "g1", "text": "about: caroline pottery", "words": ["caroline", "pottery"],
                     "hits": 1, "contents": [{"id": "ep7", "kind": "episode", "text": "t",
                                              "episode_id": "ep7"}]}]}
    runner = FakeRunner({"retrieval/search_units@Episode": [row],
                         "associative/reconstruct_round": [cue]})
    result = AssociativeMemory(runner, HashEmbedder(), "ns-unit").recall(
        "What pottery did Caroline do?", k=8, max_rounds=2)
    assert runner.names() == ["retrieval/search_units@Episode", "associative/reconstruct_round"]
    lifted = next(i for i in result.items if i.id == "ep7")  # last by its own score
    # graph step = γ · w(c) · x_question = 0.25 · 1 · (0.55 - 0.275): the cue leads only to ep7
    assert lifted.graph_score == pytest.approx(0.25 * 0.275) and lifted.found_by[-1] == "cue_tag_to_content"
    assert [p.action for p in lifted.path][-3:] == [
        "question_cue_text", "cue_to_tag", "cue_tag_to_content"]
    assert [(r.number, r.action) for r in result.rounds] == [(1, "seed"), (2, "cue_to_tag")]
    assert result.rounds[-1].details["stop"] is True
    assert all(i.source_ids and i.path[0].node == "question" for i in result.items)
    assert result.items[0].score >= result.items[-1].score
    assert AssociativeMemory(runner, HashEmbedder(), "ns-unit").recall(
        "What pottery?", k=3, max_rounds=1).rounds[-1].number == 1


def test_a_batch_between_stored_episodes_is_linked_both_ways_and_replanned_when_stale() -> None:
    before = {"id": "p", "speaker": "Caroline", "text": "Caroline: Hello there friend.",
              "session": "default", "occurred_at": None, "other_text": None, "other_speaker": None}
    after = {"id": "n", "speaker": "Caroline", "text": "Caroline: See you soon then.",
             "session": "default", "occurred_at": None, "other_text": None, "other_speaker": None}
    around = {"timeline_before": "p", "timeline_after": "n", "session_before": before,
              "session_after": after, "stored": True}
    calls = {"n": 0}

    def context(params):  # the first plan goes stale: a writer stored "p2" before the lock
        calls["n"] += 1
        return [around] if calls["n"] != 2 else [{**around, "timeline_before": "p2"}]

    runner = FakeRunner({"associative/timeline_context": context,
                         "associative/lock_timeline": [{"created": 0}]})
    AssociativeMemory(runner, HashEmbedder(), "ns-unit").ingest([_conversation()])
    assert [t[:2] for t in runner.transactions] == [
        ["associative/lock_timeline", "associative/timeline_context"]] * 2
    relink = dict(runner.calls)["associative/relink_neighbours"]
    ids = [r["id"] for r in dict(runner.calls)["associative/merge_episodes"]["rows"]]
    assert relink["unlink"] == [{"rel": "NEXT_EPISODE", "previous": "p", "next": "n"},
                                {"rel": "NEXT_TURN", "previous": "p", "next": "n"}]
    assert relink["link"] == [{"rel": "NEXT_EPISODE", "previous": ids[-1], "next": "n"},
                              {"rel": "NEXT_TURN", "previous": ids[-1], "next": "n"}]
    assert relink["point"] == [{"id": "p", "next_id": ids[0], "prev_id": None}]
    vectors = dict(runner.calls)["associative/set_episode_embeddings"]["rows"]
    assert [r["id"] for r in vectors] == [*ids, "p", "n"]  # both neighbours re-encoded
    timeline = dict(runner.calls)["associative/link_episode_timeline"]["pairs"]
    assert timeline[0] == {"previous": "p", "next": ids[0]}

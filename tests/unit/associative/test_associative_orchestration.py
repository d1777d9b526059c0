"""Associative memory orchestration without a database (fake runner, hash embedder)."""

from __future__ import annotations

from datetime import datetime, timezone

from fake_runner import FakeRunner, HashEmbedder

from graphmem.associative import AssociativeMemory
from graphmem.conversations import Conversation, Turn

WRITES = ["associative/merge_episodes", "associative/link_episode_timeline",
          "associative/merge_cues", "associative/merge_tags", "associative/link_tag_episodes",
          "associative/merge_semantic_units", "associative/link_tag_semantic_units",
          "associative/merge_themes"]


def _conversation() -> Conversation:
    texts = ["I went to the LGBTQ support group yesterday.", "My favourite book is Dune."]
    turns = [Turn(source_id=f"D1:{i + 1}", speaker="Caroline", text=t,
                  timestamp=datetime(2023, 5, 8, 13, i, tzinfo=timezone.utc), position=i)
             for i, t in enumerate(texts)]
    return Conversation(id="conv-1", speakers=["Caroline"], turns=turns)


def test_ingest_sends_one_transaction_and_reports_the_database_answer() -> None:
    runner = FakeRunner({"associative/merge_episodes": [{"created": 2}],
                         "associative/merge_cues": [{"created": 5}],
                         "associative/merge_tags": [{"created": 6}],
                         "associative/merge_semantic_units": [{"created": 1}],
                         "associative/merge_themes": [{"created": 1}]})
    done: list[int] = []
    report = AssociativeMemory(runner, HashEmbedder(), "ns-unit").ingest(
        [_conversation()], progress=done.append)
    assert runner.transactions == [WRITES]
    assert runner.names()[0] == "associative/find_existing_episodes"
    assert report.created == {"Episode": 2, "Cue": 5, "Tag": 6, "SemanticUnit": 1, "Theme": 1}
    assert report.inputs == 2 and report.skipped == {} and done == [2]
    assert report.details["cue_tag_content_triples"] > 0
    episodes = dict(runner.calls)["associative/merge_episodes"]["rows"]
    assert [r["source_id"] for r in episodes] == ["D1:1", "D1:2"]


def test_reingest_skips_a_stored_conversation() -> None:
    runner = FakeRunner({"associative/find_existing_episodes":
                         lambda params: [{"id": i} for i in params["ids"]]})
    report = AssociativeMemory(runner, HashEmbedder(), "ns-unit").ingest([_conversation()])
    assert runner.transactions == [] and report.created == {} and report.skipped == {"turn": 2}


def test_recall_cuts_at_k_and_numbers_rounds_from_the_seed() -> None:
    rows = [{"id": f"ep{i}", "kind": "episode", "text": f"Caroline: turn {i}",
             "source_ids": [f"D1:{i}"], "conversation_id": "conv-1", "occurred_at": None,
             "score": 0.9 - i / 100} for i in range(8)]
    runner = FakeRunner({
        "associative/count_structure": [{"episodes": 8, "cues": 0, "tags": 0, "semantic_units": 0,
                                         "themes": 0, "has_tag": 0, "leads_to": 0,
                                         "next_episode": 7, "derived_from": 0, "groups": 0}],
        "associative/search_episodes": rows, "associative/search_episodes_exact": rows})
    result = AssociativeMemory(runner, HashEmbedder(), "ns-unit").recall(
        "What did Caroline do?", k=5, max_rounds=2)
    assert [i.id for i in result.items] == ["ep0", "ep1", "ep2", "ep3", "ep4"]
    assert result.rounds[0].number == 0 and result.rounds[0].action == "seed"
    assert result.rounds[-1].details["stop"] is True
    assert all(i.source_ids and i.path[0].node == "question" for i in result.items)
    assert result.items[0].score >= result.items[-1].score

"""The concurrent ingest benchmark's pure half: units, batches, and the comparison with the
single-writer run that defines a lost update."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from graphmem.conversations import Conversation, Turn
from graphmem.errors import InvalidInputError
from graphmem.evaluation import concurrency_plan as plan

T1 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
T2 = datetime(2023, 5, 25, 13, 14, tzinfo=timezone.utc)


def _conversation() -> Conversation:
    turns = [Turn(source_id=f"D1:{i}", speaker="Caroline" if i % 2 else "Melanie",
                  text=f"turn {i}", timestamp=T1, session="session_1", position=i - 1)
             for i in range(1, 6)]
    turns += [Turn(source_id=f"D2:{i}", speaker="Melanie", text=f"later {i}", timestamp=T2,
                   session="session_2", position=4 + i) for i in range(1, 3)]
    return Conversation(id="conv-26", turns=turns, speakers=["Caroline", "Melanie"])


def _graph(nodes: dict, rels: dict, **checks: int) -> dict:
    return {"nodes": nodes, "relationships": rels, "checks": checks}


def test_writers_always_include_the_single_writer_reference() -> None:
    assert plan.check_writers((4, 2)) == [1, 2, 4]
    assert plan.check_writers((1, 1, 8)) == [1, 8]
    for bad in (0, -1, 65, 2.0, True, "4"):
        with pytest.raises(InvalidInputError, match=repr(bad).replace("(", r"\(")):
            plan.check_writers((1, bad))


def test_each_session_becomes_its_own_conversation() -> None:
    units = plan.session_units([_conversation()])
    assert [u.id for u in units] == ["conv-26-session_1", "conv-26-session_2"]
    assert [[t.source_id for t in u.turns] for u in units] == [
        ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5"], ["D2:1", "D2:2"]]
    assert units[1].speakers == ["Caroline", "Melanie"]
    with pytest.raises(InvalidInputError, match="no turns"):
        plan.session_units([])


def test_deal_is_round_robin() -> None:
    assert plan.deal(list("abcdefg"), 3) == [["a", "d", "g"], ["b", "e"], ["c", "f"]]
    assert plan.deal([0, 1], 4) == [[0], [1], [], []]


def test_message_batches_stay_inside_a_session_in_order() -> None:
    batches = plan.message_batches([_conversation()], 2)
    assert [(b.session, [m["id"] for m in b.messages]) for b in batches] == [
        ("session_1", ["D1:1", "D1:2"]), ("session_1", ["D1:3", "D1:4"]),
        ("session_1", ["D1:5"]), ("session_2", ["D2:1", "D2:2"])]
    assert batches[0].conversation_id == "conv-26"
    assert batches[3].messages[0] == {"id": "D2:1", "role": "Melanie", "content": "later 1",
                                      "timestamp": T2}
    for bad in (0, True, 1.5):
        with pytest.raises(InvalidInputError, match="batch_size"):
            plan.message_batches([_conversation()], bad)


def test_an_equal_graph_loses_nothing() -> None:
    graph = _graph({"Event": 7, "Topic": 3}, {"TEMPORAL_NEXT": 4}, bad_current=0, unchained=0)
    got = plan.compare("state", "same_namespace", graph, graph)
    assert got == {"differences": {}, "order_dependent_differences": {},
                   "violations": dict.fromkeys(plan.VIOLATIONS["state"], 0), "lost_updates": 0}


def test_a_missing_or_doubled_unit_is_a_lost_update() -> None:
    single = _graph({"Episode": 7, "Cue": 20}, {"NEXT_EPISODE": 6, "GROUPS": 7})
    run = _graph({"Episode": 7, "Cue": 21}, {"NEXT_EPISODE": 5, "GROUPS": 14}, timeline_forks=1,
                 extra_heads=1)
    got = plan.compare("associative", "same_conversation", single, run)
    assert got["differences"] == {"Cue": {"single": 20, "concurrent": 21},
                                  "NEXT_EPISODE": {"single": 6, "concurrent": 5}}
    # the themes are made by the batch that finds the conversation empty: arrival order
    assert got["order_dependent_differences"] == {"GROUPS": {"single": 7, "concurrent": 14}}
    assert got["violations"]["timeline_forks"] == 1 and got["violations"]["extra_heads"] == 1
    assert got["lost_updates"] == 1 + 1 + 1 + 1
    # whole conversations per writer: a theme difference is a defect
    assert plan.compare("associative", "same_namespace", single, run)["lost_updates"] == 11


def test_topic_counts_follow_arrival_order_only_within_one_conversation() -> None:
    single = _graph({"Topic": 13, "Event": 40}, {"EVIDENCED_BY": 30, "TEMPORAL_NEXT": 27})
    run = _graph({"Topic": 16, "Event": 40}, {"EVIDENCED_BY": 30, "TEMPORAL_NEXT": 24})
    interleaved = plan.compare("state", "same_conversation", single, run)
    assert interleaved["lost_updates"] == 0 and interleaved["differences"] == {}
    assert interleaved["order_dependent_differences"] == {
        "Topic": {"single": 13, "concurrent": 16},
        "TEMPORAL_NEXT": {"single": 27, "concurrent": 24}}
    # whole conversations per writer: the same difference is a defect
    assert plan.compare("state", "same_namespace", single, run)["lost_updates"] == 6
    lost_evidence = _graph({"Topic": 16, "Event": 40}, {"EVIDENCED_BY": 29, "TEMPORAL_NEXT": 24})
    assert plan.compare("state", "same_conversation", single, lost_evidence)["lost_updates"] == 1


def test_graphs_of_several_namespaces_add_up() -> None:
    a = _graph({"Event": 3}, {"TEMPORAL_NEXT": 2}, unchained=0, conversations=1)
    b = _graph({"Event": 4, "State": 1}, {"TEMPORAL_NEXT": 3}, unchained=1, conversations=1)
    assert plan.merge_graphs([a, b]) == _graph({"Event": 7, "State": 1}, {"TEMPORAL_NEXT": 5},
                                               unchained=1, conversations=2)


def test_speedup() -> None:
    assert plan.speedup(15.0, 10.0) == 1.5
    assert plan.speedup(None, 10.0) is None and plan.speedup(3.0, 0.0) is None


def test_section_arguments_are_checked_before_any_write() -> None:
    from graphmem.evaluation.concurrency import concurrency_section

    conv = [_conversation()]
    for kwargs, match in (({"writers": (0,)}, "writers"), ({"repeats": 0}, "repeats"),
                          ({"memories": ("insight",)}, "'insight'"),
                          ({"layouts": ("shared",)}, "'shared'"), ({"batch_size": 0}, "batch_size")):
        with pytest.raises(InvalidInputError, match=match):
            concurrency_section(None, conv, **kwargs)  # type: ignore[arg-type]


def test_markdown_lists_rows_and_differences() -> None:
    from graphmem.evaluation.concurrency import concurrency_markdown

    row = {"turns_per_s": 12.5, "turns_per_s_runs": [12.0, 13.0], "speedup": 1.0, "retries": 0,
           "lost_updates": 0, "differences": [], "order_dependent_differences": [],
           "violations": {"timeline_forks": 0}}
    bad = {**row, "speedup": 1.4, "retries": 2, "lost_updates": 3,
           "differences": [{"GROUPS": {"single": 8, "concurrent": 16}}],
           "violations": {"timeline_forks": 1}}
    section = {"mode": "threads", "repeats": 2, "input": {"turns": 40, "conversations": ["conv-26"]},
               "memories": {"associative": {"same_conversation": {"1": row, "2": bad}}}}
    text = concurrency_markdown(section)
    assert "| associative | same_conversation | 2 | 12.5 | 12.0–13.0 | 1.4 | 2 | 3 |" in text
    assert "- associative same_conversation N=2 differences: GROUPS 8 → 16" in text
    assert "- associative same_conversation N=2 violations: {'timeline_forks': 1}" in text
    assert text.startswith("40 turns of conv-26; writers: threads; 2 run(s) per row.")

"""evaluate_corpus on the real Neo4j: two small conversations (one tenant each, both in the
database while questioned), every method scored in every category, tenants deleted after."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from graphmem.conversations import Conversation, QAItem, Turn
from graphmem.evaluation.corpus_recall import METHODS, evaluate_corpus
from graphmem.evaluation.protocol import SHIPPED, RetrievalSetting
from graphmem.facade import GraphMemory

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)

GARDEN = [
    ("user", "I planted tomatoes and basil in the raised bed this spring."),
    ("assistant", "Tomatoes like full sun; water them at the base in the morning."),
    ("user", "My neighbour lent me a wheelbarrow for the compost."),
    ("assistant", "Turn the compost every two weeks so it breaks down evenly."),
    ("user", "The soil test said the pH is 6.2."),
    ("assistant", "A pH of 6.2 suits most vegetables well."),
    ("user", "Slugs ate half of the lettuce seedlings overnight."),
    ("assistant", "Beer traps and copper tape keep slugs away from lettuce."),
    ("user", "I named the greenhouse Quillfeather after my grandmother."),
    ("assistant", "Quillfeather is a lovely name for a greenhouse."),
    ("user", "I moved the basil to a pot on the balcony."),
    ("assistant", "Basil in pots needs watering more often in the heat."),
]
TRAVEL = [
    ("user", "I am planning a train trip from Vienna to Krakow in May."),
    ("assistant", "The direct night train takes about seven hours."),
    ("user", "My passport expires in August, is that fine?"),
    ("assistant", "Within the Schengen area a valid passport on the travel dates is enough."),
    ("user", "I booked a hostel near the old town square."),
    ("assistant", "The old town square is walkable from the station."),
    ("user", "My cousin Zebediah will join me in Krakow for two days."),
    ("assistant", "Two days with Zebediah leaves time for the salt mine tour."),
    ("user", "I changed the hostel booking to a hotel by the river."),
    ("assistant", "A hotel by the river is quieter at night."),
    ("user", "I bought a rail pass that covers the return leg too."),
    ("assistant", "Keep the rail pass on your phone for inspections."),
]


def _conversation(cid: str, lines: list[tuple[str, str]], qa: list[QAItem]) -> Conversation:
    turns = [Turn(source_id=f"m{i}", speaker=who, text=text,
                  timestamp=T0 + timedelta(days=i // 4, minutes=i), session=f"s{i // 4 + 1}",
                  position=i) for i, (who, text) in enumerate(lines)]
    return Conversation(id=cid, turns=turns, speakers=["user", "assistant"], qa=qa)


CONVERSATIONS = [
    _conversation("garden", GARDEN, [
        QAItem(question="What did I name the greenhouse?", evidence=["m8"],
               category="information_extraction"),
        QAItem(question="Where is the basil now?", evidence=["m0", "m10"],
               category="knowledge_update"),
        QAItem(question="What is the soil pH and how did slugs affect the lettuce?",
               evidence=["m4", "m6"], category="multi_session_reasoning"),
    ]),
    _conversation("travel", TRAVEL, [
        QAItem(question="Who is my cousin joining me in Krakow?", evidence=["m6"],
               category="information_extraction"),
        QAItem(question="Where am I staying in Krakow now?", evidence=["m4", "m8"],
               category="knowledge_update"),
        QAItem(question="Which train and which ticket cover the trip?", evidence=["m1", "m10"],
               category="multi_session_reasoning"),
        QAItem(question="Evidence naming no turn", evidence=["m99"], category="abstention"),
    ]),
]
CATEGORIES = {"information_extraction", "knowledge_update", "multi_session_reasoning", "overall"}


def _nodes(runner, namespace: str) -> int:
    return sum(int(r["nodes"]) for r in runner.read("core/count_namespace_nodes",
                                                     namespace=namespace))


def test_evaluate_corpus_scores_every_method_in_every_category(runner, embedder,
                                                                namespace: str) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    prefix = f"{namespace}-corpus"
    lines: list[str] = []
    report = evaluate_corpus(mem, "synthetic", CONVERSATIONS, prefix,
                             settings=(SHIPPED, RetrievalSetting(alpha=0.9)),
                             progress=lines.append)
    assert set(report) >= {"corpus", "conversations", "questions", "skipped_questions", "recall",
                           "session_recall@5", "per_conversation", "latency_ms",
                           "ingest_seconds", "per_question", "loo", "protocol"}
    assert report["corpus"] == "synthetic" and report["conversations"] == ["garden", "travel"]
    assert report["questions"] == 6 and report["skipped_questions"] == 1
    assert set(report["recall"]) == set(METHODS) == set(report["session_recall@5"])
    for method in METHODS:
        assert set(report["recall"][method]) == CATEGORIES, method
        assert set(report["session_recall@5"][method]) == CATEGORIES, method
        assert report["recall"][method]["overall"]["questions"] == 6
        assert set(report["per_conversation"][method]) == {"garden", "travel"}
        assert set(report["latency_ms"][method]) == {"p50", "p95"}
        for row in report["recall"][method].values():
            assert 0.0 <= row["recall@5"] <= row["recall@10"] <= row["recall@20"] <= 1.0
    assert set(report["ingest_seconds"]) == {"state", "associative", "baselines"}
    # two settings, two conversations: the memories are leave-one-conversation-out
    assert report["protocol"].startswith("leave-one-conversation-out")
    assert set(report["loo"]) == {"fused", "state", "associative"}
    assert set(report["loo"]["fused"]["picks"]) == {"garden", "travel"}
    # a question answered by one distinctive turn: found by the fused recall in its top 10
    rows = {(r["conversation"], r["question"]): r for r in report["per_question"]}
    greenhouse = rows[("garden", "What did I name the greenhouse?")]
    assert greenhouse["gold"] == ["m8"] and greenhouse["category"] == "information_extraction"
    assert "m8" in greenhouse["fused"][:10]
    assert all(len(r[m]) <= 10 for r in report["per_question"] for m in METHODS)
    assert rows[("travel", "Who is my cousin joining me in Krakow?")]["bm25"][0] == "m6"
    assert any("garden: state ingest" in line for line in lines)
    assert "travel: 3 questions under 2 setting(s)" in lines
    # every tenant is gone
    for conv in CONVERSATIONS:
        assert _nodes(runner, f"{prefix}-{conv.id}") == 0

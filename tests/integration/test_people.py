"""People on the real Neo4j: a two-person chat between app handle ``jdoe92`` and ``Melanie``
(she calls him "Johnny", he calls her "Mel"). State ingest writes Person nodes with those aliases
and MENTIONS edges; a question naming "Johnny" ranks his own Lisbon message first, which it
did not without the people; ``delete_namespace`` leaves no Person node."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from graphmem.conversations import Conversation, Turn
from graphmem.errors import InvalidInputError
from graphmem.facade import GraphMemory
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.state.people_store import write_people

TEST_CYPHER = Path(__file__).parent / "cypher"


@pytest.fixture
def test_queries(runner: QueryRunner) -> QueryRunner:
    """Same driver, the test-only queries (``read_people``)."""
    return QueryRunner(runner.driver, CypherRegistry.load(TEST_CYPHER), database=runner.database)

LINES = [  # both went to Lisbon: only who "Johnny" is tells his message from hers
    ("s1", "Melanie", "Hey Johnny! I spent a week in Lisbon in spring, the old trams and the "
                      "custard tarts were lovely."),
    ("s1", "jdoe92", "Hi Mel! I was in Lisbon last month, the view from the castle at sunset "
                     "was the best part."),
    ("s1", "Melanie", "Oh nice. The castle was closed when I went."),
    ("s1", "jdoe92", "Sounds fun. Anyway, how is the painting going?"),
    ("s1", "Melanie", "I finished a sunrise over the lake last weekend and framed it."),
    ("s1", "jdoe92", "Thanks for sharing, Mel. I would love to see it some time."),
    ("s2", "Melanie", "Hi Johnny, my kids started swimming lessons this week."),
    ("s2", "jdoe92", "Good for them! I signed up for a pottery class downtown."),
    ("s2", "Melanie", "Pottery is relaxing. My sister Anna makes bowls and Anna sells them at "
                      "the market."),
    ("s2", "jdoe92", "I would buy one. My flight back was delayed by three hours though."),
    ("s2", "Melanie", "Travel can be exhausting, Johnny. Glad you got home safe."),
    ("s2", "jdoe92", "Me too. Next I want to go hiking in the mountains."),
]
QUESTION = "What did Johnny say about his trip to Lisbon?"
LISBON = "d1"


def _chat() -> Conversation:
    start = datetime(2024, 5, 1, 18, 0, tzinfo=timezone.utc)
    turns = [Turn(source_id=f"d{i}", speaker=speaker, text=text, session=session, position=i,
                  timestamp=start + timedelta(days=0 if session == "s1" else 7, minutes=i))
             for i, (session, speaker, text) in enumerate(LINES)]
    return Conversation(id="chat-1", speakers=["Melanie", "jdoe92"], turns=turns)


def _firsts(mem: GraphMemory) -> tuple[list[str], list[str]]:
    return (mem.state.recall(QUESTION, k=5).source_ids(),
            mem.recall(QUESTION, k=5, memories=["state"]).source_ids())


def test_people_are_stored_and_lift_the_speaker_a_nickname_names(runner, test_queries, embedder,
                                                                  namespace):
    mem = GraphMemory(runner, embedder, namespace)
    mem.state.ingest([_chat()])
    people = {p["key"]: p for p in _people(test_queries, namespace)}
    assert set(people) == {"speaker:Melanie", "speaker:jdoe92", "name:anna"}
    john, mel = people["speaker:jdoe92"], people["speaker:Melanie"]
    assert john["aliases"] == ["jdoe", "jdoe92", "johnny"] and john["name"] == "Johnny"
    assert john["speakers"] == ["jdoe92"] and john["conversation_id"] == "chat-1"
    assert mel["aliases"] == ["mel", "melanie"] and mel["name"] == "Melanie"
    assert people["name:anna"]["speakers"] == []
    # MENTIONS: Melanie's turns naming Johnny, his naming Mel, hers naming her sister
    assert _mentions(test_queries, namespace) == {
        "speaker:jdoe92": ["d0", "d10", "d6"], "speaker:Melanie": ["d1", "d5"],
        "name:anna": ["d8"]}
    assert mem.state.counts()["Person"] == 3

    state, fused = _firsts(mem)
    assert state[0] == LISBON and fused[0] == LISBON

    # the people step switched off: no Person nodes (the write lock's version raised, as any
    # write of people does, so the engine reads the aliases again)
    runner.write("state/delete_people", namespace=namespace, conversation="chat-1")
    runner.write("state/lock_people", namespace=namespace, conversation="chat-1",
                 lock_id=mem.state.store.lock_id("chat-1"))
    assert mem.state.counts()["Person"] == 0
    state, fused = _firsts(mem)
    assert state[0] == fused[0] == "d0"  # her own Lisbon message, which names Johnny, wins

    # resolved again from the stored events: the same people, the same ranking
    assert write_people(runner, namespace, "chat-1", mem.state.store.lock_id("chat-1")) == {
        "people": 3, "mentions": 6, "deleted": 0}
    state, fused = _firsts(mem)
    assert state[0] == LISBON and fused[0] == LISBON

    mem.delete_namespace()
    assert mem.state.counts()["Person"] == 0 and _people(test_queries, namespace) == []


def test_a_later_ingest_replaces_the_conversations_people(runner, test_queries, embedder,
                                                          namespace):
    mem = GraphMemory(runner, embedder, namespace)
    chat = _chat()
    mem.state.ingest([chat.model_copy(update={"turns": chat.turns[:2]})])
    first = {p["key"]: p for p in _people(test_queries, namespace)}
    assert first["speaker:jdoe92"]["aliases"] == ["jdoe", "jdoe92"]  # one vocative: no alias yet
    mem.state.ingest([chat])  # the rest: re-resolved from all stored events
    later = {p["key"]: p for p in _people(test_queries, namespace)}
    assert later["speaker:jdoe92"]["aliases"] == ["jdoe", "jdoe92", "johnny"]
    assert later["speaker:jdoe92"]["id"] == first["speaker:jdoe92"]["id"]
    assert _mentions(test_queries, namespace) == {  # replaced, not added to
        "speaker:jdoe92": ["d0", "d10", "d6"], "speaker:Melanie": ["d1", "d5"],
        "name:anna": ["d8"]}
    assert mem.state.counts()["Person"] == 3
    assert mem.state.ingest([chat]).created == {}  # nothing new: the people stay as they are
    assert len(_people(test_queries, namespace)) == 3


def _people(runner, namespace: str) -> list[dict]:
    return [r["props"] for r in runner.read("read_people", namespace=namespace)]


def _mentions(runner, namespace: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in runner.read("read_people", namespace=namespace):
        out[r["props"]["key"]] = sorted(r["mentioned_by"])
    return {k: v for k, v in out.items() if v}


def test_message_by_message_adds_resolve_people_after_a_tenth_more_and_on_demand(
        runner, test_queries, embedder, namespace):
    mem = GraphMemory(runner, embedder, namespace)
    chat = _chat()
    resolved = []
    for i in range(len(chat.turns)):  # one message at a time, as a chat history writes
        report = mem.state.ingest([chat.model_copy(update={"turns": chat.turns[:i + 1]})])
        assert report.created["Event"] == 1
        resolved.append(len(_people(test_queries, namespace)) > 0 and _people_events(
            runner, mem) == i + 1)
    # resolved at 1, 2, ..., 10 events (a tenth of fewer than ten is less than one), then at 11
    # and 12 too (at least one more event): every add of a 12-turn chat
    assert resolved == [True] * 12
    before = {p["key"]: p["aliases"] for p in _people(test_queries, namespace)}
    assert before["speaker:jdoe92"] == ["jdoe", "jdoe92", "johnny"]

    big = Conversation(id="chat-2", speakers=["Ann", "Bo"], turns=[
        Turn(source_id=f"b{i}", speaker="Ann" if i % 2 == 0 else "Bo",
             text=f"Hey {'Bo' if i % 2 == 0 else 'Ann'}! Message number {i}.", session="s1",
             position=i, timestamp=datetime(2024, 6, 1, tzinfo=timezone.utc) + timedelta(minutes=i))
        for i in range(25)])
    mem.state.ingest([big.model_copy(update={"turns": big.turns[:20]})])
    assert _people_events(runner, mem, "chat-2") == 20
    mem.state.ingest([big.model_copy(update={"turns": big.turns[:21]})])
    assert _people_events(runner, mem, "chat-2") == 20  # 21 < 20 + 2: not due yet
    mem.state.ingest([big.model_copy(update={"turns": big.turns[:22]})])
    assert _people_events(runner, mem, "chat-2") == 22  # a tenth more: resolved
    mem.state.ingest([big.model_copy(update={"turns": big.turns[:23]})])
    assert _people_events(runner, mem, "chat-2") == 22
    assert mem.state.resolve_people("chat-2") == {"people": 2, "mentions": 23, "deleted": 2}
    assert _people_events(runner, mem, "chat-2") == 23
    assert mem.state.resolve_people("no-such-chat") == {"people": 0, "mentions": 0, "deleted": 0}
    with pytest.raises(InvalidInputError, match="conversation_id"):
        mem.state.resolve_people(" ")


def _people_events(runner, mem: GraphMemory, conversation: str = "chat-1") -> int | None:
    rows = runner.read("state/people_due", namespace=mem.namespace,
                       lock_id=mem.state.store.lock_id(conversation), conversation=conversation)
    return rows[0]["people_events"] if rows else None

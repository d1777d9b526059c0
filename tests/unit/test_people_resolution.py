"""Who is who in a conversation (graphmem.state.people) and how recall uses it
(graphmem.retrieval.aliases, the entity step's alternatives, the engine's alias cache): each rule
on a small synthetic dialogue, without a database."""

from __future__ import annotations

import pytest
from fake_runner import FakeRunner, unit_columns

from graphmem.errors import InvalidInputError
from graphmem.retrieval import fusion
from graphmem.retrieval.aliases import AliasCache, Aliases
from graphmem.retrieval.engine import HybridSearch
from graphmem.retrieval.text import analyze, index_terms, mention_alternatives
from graphmem.state.people import Person, label_aliases, resolve_people
from graphmem.state.people_store import people_rows, person_id


def _chat(*lines: str, session: str = "s1") -> list[dict]:
    """``"speaker: text"`` lines as turns d0, d1, ... of one session."""
    turns = []
    for i, line in enumerate(lines):
        speaker, text = line.split(": ", 1)
        turns.append({"speaker": speaker, "text": text, "source_id": f"d{i}", "session": session})
    return turns


def _by_speaker(people: list[Person]) -> dict[str, Person]:
    return {p.speakers[0] if p.speakers else p.key: p for p in people}


JOHNNY = _chat(
    "Melanie: Hey Johnny! How was the trip?",
    "jdoe92: Hi Mel! Lisbon was great, the trams were amazing.",
    "Melanie: That sounds lovely, Johnny!",
    "jdoe92: Thanks, Mel. What did you do this weekend?",
    "Melanie: Johnny, I painted a sunrise at the lake.",
    "jdoe92: I love that. Send me a photo!",
)


def test_handles_split_into_parts_of_two_letters_or_more() -> None:
    assert label_aliases("john_doe92") == ["john_doe92", "john", "doe"]
    assert label_aliases("jdoe92") == ["jdoe92", "jdoe"]
    assert label_aliases("Mary-Ann O.Neil") == ["mary-ann o.neil", "mary", "ann", "neil"]
    assert label_aliases("x_1") == ["x_1"]


def test_vocatives_with_votes_name_the_other_speaker() -> None:
    people = resolve_people(JOHNNY)
    assert [p.key for p in people] == ["speaker:Melanie", "speaker:jdoe92"]
    mel, john = people
    assert john.aliases == ("jdoe", "jdoe92", "johnny") and john.speakers == ("jdoe92",)
    assert john.name == "Johnny"  # the longest alias written as a proper name
    assert mel.aliases == ("mel", "melanie") and mel.name == "Melanie"
    # Melanie's turns name Johnny (d0, d2, d4); his own turns are no mentions of him
    assert john.mentions == ("d0", "d2", "d4")
    assert mel.mentions == ("d1", "d3")


def test_one_vote_or_a_split_vote_makes_no_alias() -> None:
    once = resolve_people(_chat("Ann: Hey Sam, are you there?", "Bob: Yes I am.",
                                "Ann: Good to hear from Sam again."))
    assert "sam" not in _by_speaker(once)["Bob"].aliases
    split = resolve_people(_chat("Ann: Hey Sam!", "Bob: Hey Sam!", "Ann: Hi Sam!",
                                 "Bob: Hi Sam!"))
    assert all("sam" not in p.aliases for p in split)  # 2 votes each: no 2/3 share


def test_self_introduction_names_the_speaker() -> None:
    people = _by_speaker(resolve_people(_chat(
        "user_1: Hi, I'm Robert, the new neighbour.",
        "user_2: Hello! This is Anna from number 4.",
        "user_1: Nice to meet you. I went to Lisbon last week, this is Lisbon in the photo.",
    )))
    assert "robert" in people["user_1"].aliases and people["user_1"].name == "Robert"
    assert "anna" in people["user_2"].aliases
    assert "lisbon" not in people["user_1"].aliases  # "this is X" only opens a turn


def test_short_and_long_forms_join_the_one_person_they_fit() -> None:
    people = _by_speaker(resolve_people(_chat(
        "Gina: Did Jonathan's new studio open yet?",
        "Jon: Yes! And Melanie came by.",
        "Gina: Great news, Jon.",
    )))
    assert "jonathan" in people["Jon"].aliases  # the alias "jon" is a prefix of it
    assert people["Jon"].mentions == ("d0", "d2")
    two = resolve_people(_chat("Caroline: I met Carol at the library.", "Carolyn: Nice one!",
                               "Caroline: Carol says hi."))
    assert all("carol" not in p.aliases for p in two)  # a prefix of both: names neither
    short = _by_speaker(resolve_people(_chat("Caroline: What a painting, Mel.",
                                             "Melanie: Thanks!")))
    assert "mel" in short["Melanie"].aliases  # one vote, but a short form of "melanie"


def test_third_parties_need_two_uses_and_a_possessive() -> None:
    people = resolve_people(_chat(
        "Ann: My sister Anna is visiting in May.",
        "Bob: Say hi to Anna from me! Is Anna's flight on time?",
        "Ann: We went to Lisbon in May, and Lisbon was sunny.",
        "Bob: Did you see Porto too?",
    ))
    third = [p for p in people if not p.speakers]
    assert [(p.key, p.name, p.aliases, p.mentions) for p in third] == [
        ("name:anna", "Anna", ("anna",), ("d0", "d1"))]  # not Lisbon, Porto, nor the month May


def test_a_speaker_is_not_a_sentence_initial_word() -> None:
    people = _by_speaker(resolve_people(_chat(
        "Ann: Will you come to the party? I will bring cake.",
        "Will: Sure. Sometimes, I think parties are great.",
        "Ann: Mark my words, it will be fun.",
        "Will: I told Mark about it. Sometimes, sometimes not.",
        "Ann: Great, I told Will's sister too.",
    )))
    assert people["Will"].mentions == ("d4",)  # "Will you come?" opens a sentence: no mention
    assert "sometimes" not in people["Ann"].aliases  # also written in lower case: no vocative
    assert not any(p.key == "name:mark" for p in people.values())


def test_empty_and_bad_input() -> None:
    assert resolve_people([]) == []
    with pytest.raises(InvalidInputError, match="turn 1 has no speaker"):
        resolve_people([{"speaker": "A", "text": "hi", "source_id": "d0", "session": None},
                        {"speaker": " ", "text": "hi", "source_id": "d1", "session": None}])
    with pytest.raises(InvalidInputError, match="turn 0 text must be a string"):
        resolve_people([{"speaker": "A", "text": None, "source_id": "d0", "session": None}])


def test_the_stored_rows_map_mentions_to_event_ids() -> None:
    people = resolve_people(JOHNNY)
    rows = people_rows("ns", "c1", people, {f"d{i}": f"e{i}" for i in range(6)})
    assert rows[1]["id"] == person_id("ns", "c1", "speaker:jdoe92") != person_id("ns", "c2", "speaker:jdoe92")
    assert rows[1]["events"] == ["e0", "e2", "e4"] and rows[1]["speakers"] == ["jdoe92"]


# ------------------------------------------------------------------ recall side
ROW = {"n_locks": 1, "unit_version": 7,
       "people": [[["jdoe92"], ["jdoe", "jdoe92", "johnny"]], [["Melanie"], ["mel", "melanie"]],
                  [[], ["anna"]]]}


def test_aliases_give_alternatives_and_expansions() -> None:
    aliases = Aliases.from_row(ROW)
    assert aliases.token == (1, 7)
    names = aliases.names(["jdoe92", "Melanie", "Bob"])
    assert names["jdoe92"] == [("jdoe92",), ("jdoe",), ("johnny",)]
    assert names["Bob"] == ("bob",)  # no person: its plain mention terms
    assert aliases.expansion(analyze("What did Johnny say about Lisbon?")) == ["jdoe92", "jdoe"]
    assert aliases.expansion(analyze("Where does Anna live?")) == []
    assert aliases.expansion(analyze("What did Bob say?")) == []
    assert mention_alternatives("William King (governor)", ["Bill", "the"]) == [
        ("william", "king"), ("bill",)]
    assert fusion.mentioned({"johnny", "trip"}, names) == ["jdoe92"]
    assert fusion.mentioned({"johnny"}, {"jdoe92": ("jdoe92",)}) == []


def _unit(id_: str, speaker: str, text: str, dense: float) -> list:
    return unit_columns(dict(id=id_, text=text, speaker=speaker, source_ids=[id_],
                             lexical_terms=" ".join(index_terms(f"{speaker}: {text}")),
                             is_cue=False, is_smalltalk=False, dense=dense, via_lexical=True,
                             via_dense=True))


def _round(version: int) -> dict:
    units = [_unit("m1", "Melanie", "Johnny, how was Lisbon?", 0.55),
             _unit("j1", "jdoe92", "Lisbon was great, the trams were amazing.", 0.6),
             *[_unit(f"x{i}", "Melanie" if i % 2 else "jdoe92", f"other words {i}", 0.1)
               for i in range(8)]]
    from collections import Counter

    from graphmem.retrieval.engine import UNIT_COLUMNS

    lexical = UNIT_COLUMNS.index("lexical_terms")
    dfs = Counter(t for u in units for t in set(u[lexical].split()))
    return {"n_units": 10, "avg_length": 5.0, "dense_mode": "exact", "units": units,
            "dfs": [[t, n] for t, n in dfs.items()],
            "speakers": [["Melanie", 5], ["jdoe92", 5]], "n_locks": 1, "unit_version": version}


def test_the_engine_reads_aliases_once_per_unit_version() -> None:
    version = {"now": 7}
    runner = FakeRunner({"retrieval/person_aliases@Event": lambda p: [{**ROW, "unit_version": version["now"]}],
                         "retrieval/search_units@Event": lambda p: [_round(version["now"])]})
    runner.alias_cache = AliasCache()
    search = HybridSearch(runner, "Event")
    question = "What did Johnny say about Lisbon?"
    first = search.search("ns", question, [1.0], k=3)
    assert runner.names() == ["retrieval/person_aliases@Event", "retrieval/search_units@Event"]
    # the expansion reaches the query (terms and df) and the ranking: jdoe92's message first
    assert runner.calls[1][1]["terms"] == [*dict.fromkeys(index_terms(question)), "jdoe92", "jdoe"]
    assert first[0].id == "j1" and first[0].components["entity"] > 0
    search.search("ns", question, [1.0], k=3)
    assert runner.names()[2:] == ["retrieval/search_units@Event"]  # cached: no alias query
    version["now"] = 8  # a write: the round's token differs, the aliases are read again
    search.search("ns", question, [1.0], k=3)
    assert runner.names()[3:] == ["retrieval/search_units@Event", "retrieval/person_aliases@Event"]
    empty = FakeRunner({"retrieval/search_units@Event": lambda p: [_round(7)],
                        "retrieval/person_aliases@Event": [{"n_locks": 1, "unit_version": 7,
                                                            "people": []}]})
    empty.alias_cache = AliasCache()  # a namespace without people: no alias query after the first
    for _ in range(3):
        HybridSearch(empty, "Event").search("ns", question, [1.0], k=3)
    assert empty.names().count("retrieval/person_aliases@Event") == 1
    off = HybridSearch(FakeRunner({"retrieval/search_units@Event": lambda p: [_round(7)]}), "Event")
    assert off.search("ns", question, [1.0], k=3)[0].id == "m1"  # no people step: her question wins


def test_identifiers_and_lists_of_names_are_no_people() -> None:
    chat = _chat(
        "user: Our RefreshToken store talks to GitLab, then the MessageService, Facebook.",
        "assistant: The RefreshToken store can call the MessageService after GitLab, Facebook.",
        "user: My PDFs go to the RefreshToken store, like GitLab, Facebook.",
        "assistant: Then the MessageService sends PDFs on, Facebook.",
    )
    people = resolve_people(chat)
    assert [(p.key, p.aliases) for p in people] == [("speaker:user", ("user",)),
                                                     ("speaker:assistant", ("assistant",))]


def test_a_long_message_is_read_for_names_in_its_start_only() -> None:
    from graphmem.state.people import MAX_TURN_CHARS

    tail = " ".join(["word"] * MAX_TURN_CHARS)
    chat = _chat(f"Ann: Hey Bo! {tail} my friend Cleo met Cleo's dog.",
                 "Bo: Hi Ann!", "Ann: Thanks, Bo!", "Bo: Sure, Ann!")
    people = resolve_people(chat)
    assert [p.key for p in people] == ["speaker:Ann", "speaker:Bo"]  # no Cleo: past the start
    assert "d0" in _by_speaker(people)["Bo"].mentions  # "Hey Bo!" opens the message


class _DueRunner:
    def __init__(self, rows: list[dict]):
        self.rows = rows

    def read(self, name: str, **params: object) -> list[dict]:
        assert name == "state/people_due" and params["conversation"] == "c1"
        return self.rows


@pytest.mark.parametrize(("events", "before", "due"), [
    (5, None, True), (0, None, False), (10, 9, True), (10, 10, False),
    (109, 100, False), (110, 100, True)])
def test_people_are_resolved_again_after_a_tenth_more_events(events: int, before: int | None,
                                                             due: bool) -> None:
    from graphmem.state.people_store import people_due

    rows = [{"events": events, "people_events": before}]
    assert people_due(_DueRunner(rows), "ns", "c1", "lock") is due
    assert people_due(_DueRunner([]), "ns", "c1", "lock") is False

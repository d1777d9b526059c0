"""Utterance classifier and statement rewriting of the heuristic state extractor, on real LoCoMo
turns (conv-26 of the bundled sample, Caroline and Melanie)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from graphmem.conversations import read_locomo
from graphmem.datasets import bundled_path
from graphmem.state.extraction import HeuristicStateExtractor, small_talk_topic
from graphmem.state.statements import (MAX_CHARS, MAX_WORDS, rewrite_statement, shorten,
                                       third_singular)
from graphmem.state.topics import topic_phrase
from graphmem.state.utterances import (SMALL_TALK, classify_sentence, classify_turn, content_words,
                                       is_name, main_statement, name_words, strip_fillers,
                                       utterances)

NAMES = name_words(["Caroline", "Melanie"])


@pytest.fixture(scope="module")
def conv26():
    [conv] = [c for c in read_locomo(bundled_path("locomo")) if c.id == "conv-26"]
    return conv


def _turn(conv, source_id: str):
    return next(t for t in conv.turns if t.source_id == source_id)


@pytest.mark.parametrize(("source_id", "kind"), [
    ("D1:1", "greeting"),    # Hey Mel! Good to see you! How have you been?
    ("D1:4", "question"),    # Wow, that's cool, Caroline! What happened ...? Did you hear ...?
    ("D1:13", "thanks"),     # Thanks, Melanie! That's really sweet. Is this your own painting?
    ("D1:8", "question"),    # That's really cool. You've got guts. What now?
    ("D2:6", "smalltalk"),   # That's great, Mel! Taking time for yourself is so important. ...
    ("D2:9", "smalltalk"),   # Wow, Caroline! That's awesome! ... you're so kind. ...
    ("D1:3", "statement"),   # I went to a LGBTQ support group yesterday ...
    ("D2:8", "statement"),   # Researching adoption agencies — it's been a dream ...
    ("D1:15", "remark"),     # Wow, Melanie! The colors really blend nicely. ...
])
def test_turn_kinds_on_locomo(conv26, source_id, kind):
    assert classify_turn(_turn(conv26, source_id).text, NAMES) == kind


@pytest.mark.parametrize(("sentence", "kind", "rank"), [
    ("Totally agree, Mel.", "smalltalk", 3),
    ("I totally agree, Melanie.", "smalltalk", 3),
    ("I'm really proud of you for taking part!", "smalltalk", 3),
    ("You'd be a great counselor!", "smalltalk", 3),
    ("Thanks for the support and encouragement.", "thanks", 3),
    ("Thanks, Caroline, for letting me join your journey.", "thanks", 3),
    ("Congrats, Melanie!", "smalltalk", 3),
    ("Hey Melanie!", "greeting", 3),
    ("What's up with you?", "question", 3),
    ("No doubts, Caroline.", "smalltalk", 3),
    ("I went to a LGBTQ support group yesterday and it was so powerful.", "statement", 0),
    ("My goal is to give kids a loving home.", "statement", 0),
    ("Researching adoption agencies — it's been a dream to have a family.", "statement", 0),
    ("We're thinking about going camping next month.", "statement", 1),
    ("The support group has made me feel accepted.", "statement", 2),
    ("The transgender stories were so inspiring!", "remark", 3),
    ("Painting landscapes is a great way to relax.", "remark", 3),   # a gerund as subject
    ("Taking care of ourselves is vital.", "smalltalk", 3),
    ("Agreed!", "smalltalk", 3),
    ("Gotta go.", "smalltalk", 3),
    ("Imagining visiting a military memorial makes me feel humble too.", "statement", 2),
    ("Loving the kids and the garden.", "remark", 3),
    ("Been a busy week since we talked.", "remark", 3),
    ("Been busy volunteering at the homeless shelter.", "statement", 0),
    ("Seeing my students succeed motivates me.", "statement", 2),
    ("We can tackle life's challenges together!", "remark", 3),
    ("We all have our different paths, but if we share them, we show people.", "remark", 3),
])
def test_sentence_kinds(sentence, kind, rank):
    found = classify_sentence(sentence, NAMES)
    assert (found.kind, found.rank) == (kind, rank)


def test_small_talk_kinds_are_the_four_of_the_brief():
    assert SMALL_TALK == {"greeting", "thanks", "question", "smalltalk"}


@pytest.mark.parametrize(("sentence", "core"), [
    ("Wow, Melanie! The colors really blend nicely.", "The colors really blend nicely."),
    ("Hey Caroline, since we last chatted, I've had a lot", "since we last chatted, I've had a lot"),
    ("That charity race sounds great, Mel!", "That charity race sounds great!"),
    ("So I'm carving out some me-time each day", "I'm carving out some me-time each day"),
    ("And btw - I've been working hard", "I've been working hard"),
    ("Great that you're prioritizing self-care.", "Great that you're prioritizing self-care."),
    ("Yeah, I painted that lake sunrise last year!", "I painted that lake sunrise last year!"),
])
def test_strip_fillers(sentence, core):
    assert strip_fillers(sentence, NAMES) == core


def test_names_and_content_words():
    assert is_name("Mel", NAMES) and is_name("Melanie's", NAMES) and not is_name("mel", NAMES)
    assert content_words("Thanks, Mel! That's really sweet.", NAMES) == ()
    assert content_words("I painted that lake sunrise last year!", NAMES) == (
        "painted", "lake", "sunrise", "year")


def test_main_statement_prefers_the_speaker_as_subject_and_content(conv26):
    d2_10 = utterances(_turn(conv26, "D2:10").text, NAMES)
    assert [u.kind for u in d2_10] == ["thanks", "statement", "statement", "statement", "statement",
                                       "statement"]
    assert main_statement(d2_10).text == "My goal is to give kids a loving home."
    # "I'm really lucky to have them." and "I'm super thankful." are too thin
    d3_13 = main_statement(utterances(_turn(conv26, "D3:13").text, NAMES))
    assert d3_13.text.startswith("They've been there through everything, I've known these friends")
    assert main_statement(utterances(_turn(conv26, "D1:13").text, NAMES)) is None


@pytest.mark.parametrize(("source_id", "statement"), [
    ("D1:3", "Caroline went to an LGBTQ support group yesterday and it was so powerful (7 May 2023)."),
    ("D1:14", "Melanie painted that lake sunrise last year (2022)."),
    ("D2:7", "Melanie's kids are so excited about summer break."),
    ("D2:8", "Caroline is researching adoption agencies — it's been a dream to have a family."),
    ("D2:10", "Caroline's goal is to give kids a loving home."),
    ("D1:9", "Caroline is gonna continue their edu and check out career options, which is pretty "
             "exciting."),
    ("D2:1", "Melanie ran a charity race for mental health last Saturday – it was really rewarding "
             "(20 May 2023)."),
])
def test_rewrite_real_statements(conv26, source_id, statement):
    turn = _turn(conv26, source_id)
    main = main_statement(utterances(turn.text, NAMES))
    assert rewrite_statement(main.text, turn.speaker, NAMES, turn.timestamp) == statement


@pytest.mark.parametrize(("sentence", "statement"), [
    ("I love painting.", "Ann loves painting."),
    ("I'm a nurse.", "Ann is a nurse."),
    ("I've been running a lot.", "Ann has been running a lot."),
    ("I'd been there before.", "Ann had been there before."),
    ("I'd love to visit Rome!", "Ann would love to visit Rome."),
    ("I don't eat meat.", "Ann doesn't eat meat."),
    ("I saw a movie.", "Ann saw a movie."),
    ("I really enjoy hiking.", "Ann really enjoys hiking."),
    ("I found my keys, and I was relieved.", "Ann found their keys, and Ann was relieved."),
    ("Got a new job at the bakery!", "Ann got a new job at the bakery."),
    ("Wanna learn the violin.", "Ann wants to learn the violin."),
    ("We're thinking about going camping.", "Ann and others are thinking about going camping."),
    ("Our dog loves us.", "Ann's dog loves them."),
    ("I joined a FBI program.", "Ann joined an FBI program."),
])
def test_rewrite_first_person(sentence, statement):
    assert rewrite_statement(sentence, "Ann", frozenset({"ann"})) == statement


def test_third_singular_and_shorten():
    assert [third_singular(w) for w in ("love", "go", "have", "am", "don't", "went", "can", "read")] \
        == ["loves", "goes", "has", "is", "doesn't", "went", "can", "read"]
    long = ("Caroline is still figuring out the details, but Caroline is thinking of working with "
            "trans people, helping them accept themselves and supporting their mental health")
    cut = shorten(long)
    assert cut == ("Caroline is still figuring out the details, but Caroline is thinking of "
                   "working with trans people, helping them accept themselves")
    assert len(cut.split()) <= MAX_WORDS
    assert shorten(" ".join(["word"] * 30)) == " ".join(["word"] * MAX_WORDS)
    assert shorten("I " + "x" * 1000) == "I " + "x" * (MAX_CHARS - 2) + "\u2026"


def test_topic_phrase_is_a_noun_phrase():
    assert topic_phrase("I went to a LGBTQ support group yesterday and it was so powerful.") \
        == "LGBTQ support group"
    assert topic_phrase("Gonna continue my edu and check out career options, which is pretty "
                        "exciting!") == "career options"
    assert topic_phrase("I'm thrilled to make a family for kids who need one.") == "family"
    assert topic_phrase("") == ""


def test_extractor_on_a_locomo_session(conv26):
    turns = [t for t in conv26.turns if t.session == conv26.turns[0].session]
    found = dict(zip([t.source_id for t in turns], HeuristicStateExtractor().extract(turns),
                     strict=True))
    assert (found["D1:1"].topic_key, found["D1:1"].resolved_topic_name()) == small_talk_topic("Caroline")
    assert found["D1:1"].assertion is None and found["D1:13"].assertion is None
    assert found["D1:3"].topic_key is None
    assert found["D1:3"].resolved_topic_name() == "Caroline: LGBTQ support group"
    assert found["D1:3"].value == ("caroline went to an lgbtq support group yesterday and it was so "
                                   "powerful (7 may 2023).")
    assert found["D1:14"].resolved_topic_name() == "Melanie: lake sunrise"
    states = [x.assertion for x in found.values() if x.assertion]
    assert all(len(s.split()) <= MAX_WORDS + 3 for s in states)  # + a parenthesised date
    assert not any(s.startswith(("Hey", "Thanks", "Wow")) or "?" in s for s in states)
    names = [x.resolved_topic_name() for x in found.values()]
    assert not any(n.endswith((": Hey Mel", ": Caroline", ": Melanie", ": Wow")) for n in names)


def test_structured_turns_keep_their_path():
    from graphmem.conversations import Turn

    turn = Turn(source_id="s1", speaker="Ann", text="Hey! Thanks! My city is Lyon?",
                timestamp=datetime(2024, 1, 1, tzinfo=timezone.utc),
                meta={"kind": "attribute", "attribute": "Residence", "value": "Lyon"})
    [x] = HeuristicStateExtractor().extract([turn])
    assert (x.topic_key, x.resolved_topic_name(), x.assertion, x.value) == (
        "Ann|Residence", "Ann residence", "Ann's residence is Lyon", "lyon")

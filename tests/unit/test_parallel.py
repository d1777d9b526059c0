"""Asking memories at once (pure: no database)."""

from __future__ import annotations

import threading

import pytest

from graphmem.parallel import ask_all, run_all


class CountingEmbedder:
    def __init__(self) -> None:
        self.questions: list[str] = []

    def embed_query(self, text: str) -> list[float]:
        self.questions.append(text)
        return [1.0]


def test_run_all_keeps_the_order_given_and_runs_the_first_in_the_caller_thread() -> None:
    caller = threading.get_ident()
    seen: list[int] = []

    def first() -> str:
        seen.append(threading.get_ident())
        return "a"

    assert run_all([first, lambda: "b", lambda: "c"]) == ["a", "b", "c"]
    assert seen == [caller]
    assert run_all([]) == []


def test_run_all_waits_for_every_call_and_raises_the_first_error_in_order() -> None:
    ended: list[str] = []

    def fails(name: str) -> None:
        ended.append(name)
        raise ValueError(name)

    def late() -> str:
        ended.append("late")
        return "ok"

    with pytest.raises(ValueError, match="^one$"):
        run_all([lambda: fails("one"), late, lambda: fails("two")])
    assert sorted(ended) == ["late", "one", "two"]


def test_ask_all_embeds_the_question_once_only_for_several_memories() -> None:
    embedder = CountingEmbedder()
    assert ask_all(embedder, "where?", [lambda: 1]) == [1]
    assert embedder.questions == []
    assert ask_all(embedder, "where?", [lambda: 1, lambda: 2]) == [1, 2]
    assert embedder.questions == ["where?"]

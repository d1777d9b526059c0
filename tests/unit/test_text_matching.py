"""graphmem.text: one matching key for the same word however Unicode spells it."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.text import matching_tokens, normalise_for_matching

NFD_NAIVE = "nai\u0308ve"
NFC_NAIVE = "na\u00efve"


def test_decomposed_and_composed_naive_share_a_key() -> None:
    assert NFD_NAIVE != NFC_NAIVE
    assert normalise_for_matching(NFD_NAIVE) == normalise_for_matching(NFC_NAIVE) == NFC_NAIVE
    assert matching_tokens(f"A {NFD_NAIVE} question") == ["a", NFC_NAIVE, "question"]
    # the old ASCII token pattern is what turned the decomposed word into "nai"
    assert re.findall(r"[A-Za-z0-9]+", NFD_NAIVE)[0] == "nai"


@pytest.mark.parametrize(("a", "b"), [
    ("NAÏVE", NFD_NAIVE), ("Straße", "STRASSE"), ("ΣΊΣΥΦΟΣ", "σίσυφος"),
    ("  café\u00a0au\tlait\n", "Cafe\u0301 au lait"), ("İstanbul", "i\u0307stanbul"),
])
def test_equivalent_spellings_match(a, b) -> None:
    assert normalise_for_matching(a) == normalise_for_matching(b)


def test_stored_text_is_not_touched() -> None:
    text = f"  {NFD_NAIVE}\u00a0 "
    normalise_for_matching(text)
    assert text == f"  {NFD_NAIVE}\u00a0 "


def test_non_str_is_refused() -> None:
    with pytest.raises(TypeError):
        normalise_for_matching(None)  # type: ignore[arg-type]


@given(st.text())
def test_key_is_idempotent_nfc_and_single_spaced(text) -> None:
    key = normalise_for_matching(text)
    assert normalise_for_matching(key) == key
    assert unicodedata.is_normalized("NFC", key)
    assert key == key.strip() and "  " not in key
    assert normalise_for_matching(unicodedata.normalize("NFD", text)) == key

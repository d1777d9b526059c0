"""names.check_key: every indexed id/key is refused above MAX_KEY_BYTES UTF-8 bytes before
anything is written (Neo4j's range index would abort the ingest with "Property value is too
large to index")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.errors import InvalidInputError
from graphmem.names import MAX_KEY_BYTES, check_key


def test_long_cjk_message_id_and_conversation_id_are_refused_naming_field_and_limit() -> None:
    with pytest.raises(InvalidInputError, match=r"turn source_id is 8400 UTF-8 bytes \(2800 "
                                                r"characters\).*MAX_KEY_BYTES=1024"):
        check_key("turn source_id", "消" * 2800)
    with pytest.raises(InvalidInputError, match=r"conversation id is 9000 UTF-8 bytes"):
        check_key("conversation id", "c" * 9000)


def test_limit_is_in_bytes_not_characters() -> None:
    assert check_key("id", "a" * MAX_KEY_BYTES) == "a" * MAX_KEY_BYTES
    assert check_key("id", "消" * (MAX_KEY_BYTES // 3)) == "消" * (MAX_KEY_BYTES // 3)
    with pytest.raises(InvalidInputError):
        check_key("id", "消" * (MAX_KEY_BYTES // 3 + 1))


@pytest.mark.parametrize("bad", ["", "   ", None, 7, b"id", "\ud800"])
def test_unusable_keys_are_refused(bad) -> None:
    with pytest.raises(InvalidInputError, match="task id"):
        check_key("task id", bad)


@given(st.text(max_size=1200))
def test_accepts_exactly_the_storable_keys(value) -> None:
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        size = None
    if size is not None and value.strip() and size <= MAX_KEY_BYTES:
        assert check_key("key", value) is value
    else:
        with pytest.raises(InvalidInputError, match="key"):
            check_key("key", value)

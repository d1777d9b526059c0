"""A feedback file that is not UTF-8 is a typed error naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.errors import InputFormatError
from graphmem.insight import read_feedback_file


def test_non_utf8_feedback_file_is_a_typed_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'\xff\xfe{"query": "x"}\n')
    with pytest.raises(InputFormatError, match=r"bad\.jsonl: not UTF-8 text"):
        read_feedback_file(path)

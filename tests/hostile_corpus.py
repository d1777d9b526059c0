"""Hostile text: strings that must be stored exactly (and read back equal) or refused with a
typed graphmem error, and never turn into Cypher, a query error or a change to other data.

``HOSTILE`` holds ordinary-size strings (each one is also a valid, non-blank text);
``HUGE_TEXT`` (1 MiB) and ``LONE_SURROGATE`` are kept apart because they are refused by
validation (``MAX_TEXT_CHARS`` and "not encodable as UTF-8"), see graphmem/validation.py.
"""

from __future__ import annotations

#: Cypher injection attempts: closing maps, patterns and strings, comments, procedure calls.
CYPHER = [
    "'}) DETACH DELETE n //",
    "\"}) DETACH DELETE n //",
    "x'}) MATCH (m) DETACH DELETE m RETURN 1 //",
    "`}) MATCH (n) DETACH DELETE n //",
    "}) RETURN 1 UNION MATCH (n) RETURN n //",
    "$namespace",
    "{namespace: 'other'}",
    "') CALL db.index.vector.queryNodes('query_embedding', 10, $embedding) YIELD node //",
    "CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'DETACH DELETE n', {})",
    "MATCH (n) DETACH DELETE n",
    "1; DROP CONSTRAINT query_id;",
    "/* comment */ RETURN 1 //",
    "n.namespace = 'x' OR true",
    "\\' OR 1=1 --",
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
    "`Query`:`Insight`",
    ":Query {id: 'x'}",
    "${injection}",
]

#: Quotes, backslashes and delimiters.
QUOTES = [
    "it's a 'quoted' \"string\"",
    "back`tick` and ``double``",
    "})",
    "({[<>]})",
    "\\",
    "\\\\server\\share\\file",
    "C:\\path\\to\\file.txt",
    "%s %d {0} {name} %(x)s",
    "<script>alert('x')</script>",
    "&amp; &lt; &gt; &quot;",
    "null",
    "NULL",
    "true",
    "0",
    "-1e308",
    "NaN",
]

#: Whitespace and control characters (each string still has visible content).
CONTROL = [
    "line one\nline two\nline three",
    "windows\r\nline endings\r\n",
    "tab\tseparated\tvalues",
    "nul\x00inside",
    "bell\x07 and escape\x1b[31mred\x1b[0m",
    "vertical\x0btab and form\x0cfeed",
    "  leading and trailing spaces  ",
    "zero\u200bwidth\u200cjoin\u200d",
    "line\u2028separator\u2029paragraph",
    "\ufeffbyte order mark",
]

#: Non-Latin scripts, emoji, combining marks, right-to-left and bidi overrides.
UNICODE = [
    "emoji 😀🔥👩‍👩‍👧‍👦 and flags 🇩🇪🇯🇵",
    "مرحبا بالعالم، هذا نص من اليمين إلى اليسار",
    "שלום עולם — עברית",
    "mixed left-to-right and عربي right-to-left",
    "bidi override \u202egnp.exe\u202c",
    "日本語のテキストと中文文本",
    "Ελληνικά και Кириллица",
    "combining e\u0301 vs \u00e9 (NFD vs NFC)",
    "Z̸̢̛a̴l̷g̶o̵ text",
    "math 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and 𝟘𝟙𝟚",
    "surrogate-pair astral 𝄞 music",
    "ﷺ ligature and ﬀ ﬁ",
]

#: Very long tokens and long repetitive text (well below the length limit).
LONG = [
    "a" * 10_000,
    "supercalifragilistic" * 500,
    "https://example.com/" + "p" * 5000 + "?q=" + "x" * 2000,
    " ".join(["word"] * 5000),
    "🔥" * 3000,
]

HOSTILE: list[str] = CYPHER + QUOTES + CONTROL + UNICODE + LONG

#: 1 MiB of text: above graphmem's ``MAX_TEXT_CHARS``, refused by validation.
HUGE_TEXT = ("lorem ipsum dolor sit amet " * 40_000)[: 1 << 20]

#: Not encodable as UTF-8 (a lone surrogate): refused by validation.
LONE_SURROGATE = "broken \ud800 surrogate"

assert len(HOSTILE) >= 50, len(HOSTILE)
assert len(set(HOSTILE)) == len(HOSTILE)
assert all(s.strip() for s in HOSTILE)

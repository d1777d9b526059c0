"""The namespace export format without a database: value encodings (vectors bit for bit,
temporal values to the nanosecond with offset or zone), line checks and their messages (file
and line number), the end line of a truncated file, the schema vocabulary the Cypher files
write out, and the id re-derivation of an import into another namespace."""

from __future__ import annotations

import base64
import json
import math
import re
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from neo4j.spatial import CartesianPoint
from neo4j.time import Date, DateTime, Duration, Time

from graphmem.errors import FormatVersionError, InputFormatError
from graphmem.graph.registry import CypherRegistry
from graphmem.lifecycle.import_ import check_file, read_header
from graphmem.lifecycle.lines import (EndLine, Header, NodeLine, RelationshipLine, dump_line,
                                      node_labels, parse_line, read_end, relationship_triples,
                                      relationship_types)
from graphmem.lifecycle.rekey import (CALLER_KEYS, NODE_REFERENCES, IdMap, suffix_id,
                                      translate)
from graphmem.lifecycle.values import (FixedOffset, NamedZone, decode_properties, decode_value,
                                       encode_properties, encode_value)
from graphmem.names import node_id
from graphmem.schema import ALL_NODE_CLASSES, label_of

CYPHER = Path(__file__).resolve().parents[2] / "cypher" / "lifecycle"


def _round_trip(value, zone=None):
    return decode_value(json.loads(json.dumps(encode_value(value, zone), allow_nan=False)))


# ----------------------------------------------------------------------------- values
def test_float32_vectors_are_base64_and_exact() -> None:
    vector = np.random.default_rng(0).normal(size=384).astype(np.float32).astype(float).tolist()
    encoded = encode_value(vector)
    assert set(encoded) == {"$f32"} and len(base64.b64decode(encoded["$f32"])) == 384 * 4
    assert _round_trip(vector) == vector


def test_other_float_lists_keep_every_bit_as_float64() -> None:
    values = [0.1, -0.0, 1e-310, 2.0 ** 60 + 1.0, math.inf]
    encoded = encode_value(values)
    assert set(encoded) == {"$f64"}
    back = _round_trip(values)
    assert back[1:] == values[1:] and math.copysign(1.0, back[1]) == -1.0
    assert np.array_equal(np.array(back), np.array(values))
    assert encode_value([0.5, -0.0]) == {"$f32": base64.b64encode(
        np.array([0.5, -0.0], "<f4").tobytes()).decode()}


def test_scalars_non_finite_floats_bytes_and_plain_lists() -> None:
    assert encode_value(3) == 3 and encode_value(True) is True and encode_value("é") == "é"
    assert encode_value(0.1) == 0.1 and encode_value(2 ** 63 - 1) == 2 ** 63 - 1
    assert encode_value(math.nan) == {"$float": "NaN"}
    assert math.isnan(_round_trip(math.nan)) and _round_trip(-math.inf) == -math.inf
    assert encode_value([1, 2]) == [1, 2] and encode_value(["a"]) == ["a"]
    assert encode_value([]) == []
    assert _round_trip(b"\x00\xff") == b"\x00\xff"


def test_zoned_datetimes_keep_nanoseconds_offset_and_zone() -> None:
    # the second 02:30 of 29 Oct 2023 in Berlin (+01:00, after the clocks went back)
    berlin = DateTime(2023, 10, 29, 2, 30, 0, 123456789, tzinfo=FixedOffset(timedelta(hours=1)))
    encoded = encode_value(berlin, "Europe/Berlin")
    assert encoded == {"$datetime": "2023-10-29T02:30:00.123456789+01:00", "zone": "Europe/Berlin"}
    back = decode_value(encoded)
    assert isinstance(back.tzinfo, NamedZone) and back.tzinfo.key == "Europe/Berlin"
    # sent as its UTC instant with the zone id: 01:30:00.123456789 UTC
    assert (back.hour, back.minute, back.nanosecond, back.utcoffset()) == (1, 30, 123456789,
                                                                          timedelta(0))
    minus = DateTime(2023, 5, 8, 13, 56, 0, 500000000,
                     tzinfo=FixedOffset(-timedelta(hours=5, minutes=30)))
    assert encode_value(minus, "-05:30") == {"$datetime": "2023-05-08T13:56:00.500000000-05:30"}
    back = _round_trip(minus, "-05:30")
    assert back == minus and back.utcoffset() == -timedelta(hours=5, minutes=30)


def test_offset_zero_and_zone_utc_stay_apart() -> None:
    stamp = DateTime(2024, 3, 1, 9, 0, 0, 0, tzinfo=FixedOffset(timedelta(0)))
    assert encode_value(stamp, "Z") == {"$datetime": "2024-03-01T09:00:00.000000000+00:00"}
    assert encode_value(stamp, "UTC") == {"$datetime": "2024-03-01T09:00:00.000000000+00:00",
                                          "zone": "UTC"}
    assert isinstance(_round_trip(stamp, "Z").tzinfo, FixedOffset)
    assert _round_trip(stamp, "UTC").tzinfo.key == "UTC"


def test_other_temporal_values() -> None:
    local = DateTime(2023, 5, 8, 13, 56, 0, 1)
    assert encode_value(local) == {"$localdatetime": "2023-05-08T13:56:00.000000001"}
    assert _round_trip(local) == local
    assert _round_trip(Date(2023, 5, 8)) == Date(2023, 5, 8)
    assert encode_value(Time(13, 56, 0, 5)) == {"$localtime": "13:56:00.000000005"}
    assert _round_trip(Time(13, 56, 0, 5)) == Time(13, 56, 0, 5)
    offset_time = Time(13, 56, 0, 100, tzinfo=FixedOffset(timedelta(hours=2)))
    assert encode_value(offset_time) == {"$time": "13:56:00.000000100+02:00"}
    assert _round_trip(offset_time).utcoffset() == timedelta(hours=2)
    duration = Duration(months=14, days=-3, seconds=7, nanoseconds=5)
    assert encode_value(duration) == {"$duration": [14, -3, 7, 5]}  # a tuple, not a list
    assert _round_trip(duration) == duration
    zones = encode_properties({"when": [local, local]}, [])
    assert zones == {"when": [{"$localdatetime": "2023-05-08T13:56:00.000000001"}] * 2}


def test_values_the_format_cannot_carry_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="property 'where'.*CartesianPoint"):
        encode_properties({"where": CartesianPoint((1.0, 2.0))})
    with pytest.raises(ValueError, match="unknown value encoding"):
        decode_value({"$vector": "AAAA"})
    with pytest.raises(ValueError, match="null"):
        decode_value(None)
    with pytest.raises(ValueError, match="property 'embedding'.*whole number of 4-byte"):
        decode_properties({"embedding": {"$f32": base64.b64encode(b"abc").decode()}})
    with pytest.raises(ValueError, match="offset"):
        decode_value({"$datetime": "2023-05-08T13:56:00"})


# ----------------------------------------------------------------------------- lines
def _header(**changes) -> dict:
    data = {"kind": "header", "format": "graphmem-namespace", "version": 1, "graphmem": "0.1.0",
            "namespace": "team-a", "dimension": 384, "created_at": "2025-01-31T09:30:00+00:00",
            "export_id": "abc"}
    return {**data, **changes}


def _node(label="Cue", node_id="c1", **props) -> dict:
    return {"kind": "node", "labels": [label], "id": node_id, "properties": props}


def test_a_good_node_and_relationship_line() -> None:
    line = parse_line(json.dumps(_node(text="caroline", created_at={
        "$datetime": "2024-01-01T00:00:00.000000000+00:00"})), "f.jsonl", 3)
    assert isinstance(line, NodeLine) and line.label == "Cue"
    rel = parse_line(json.dumps({"kind": "relationship", "type": "HAS_TAG", "start": "c1",
                                 "start_label": "Cue", "end": "t1", "end_label": "Tag",
                                 "properties": {}}), "f.jsonl", 9)
    assert isinstance(rel, RelationshipLine)
    assert parse_line(dump_line(line), "f.jsonl", 3) == line


@pytest.mark.parametrize("text, message", [
    ('{"kind": "node", "labels": ["Cue"]', r"f\.jsonl: line 7: not JSON"),
    ('[1, 2]', r"line 7: expected a JSON object"),
    ('{"kind": "vertex"}', r"line 7: unknown kind 'vertex'"),
    (json.dumps(_node(label="Secret")), r"line 7: label 'Secret' is not in graphmem's schema"),
    (json.dumps({"kind": "node", "labels": ["Cue"], "properties": {}}), r"line 7: node line: id: "
                                                                       r"Field required"),
    (json.dumps({**_node(), "extra": 1}), r"line 7: node line: extra: Extra inputs"),
    (json.dumps(_node(namespace="x")), r"line 7: properties hold \['namespace'\]"),
    (json.dumps(_node(embedding={"$f32": "!!"})), r"line 7: property 'embedding'"),
    (json.dumps({"kind": "relationship", "type": "DROP_ALL", "start": "a", "start_label": "Cue",
                 "end": "b", "end_label": "Tag", "properties": {}}),
     r"line 7: relationship \(:Cue\)-\[:DROP_ALL\]->\(:Tag\) is not in graphmem's schema"),
    (json.dumps({"kind": "relationship", "type": "HAS_TAG", "start": "a", "start_label": "Tag",
                 "end": "b", "end_label": "Cue", "properties": {}}), r"line 7: relationship"),
    (json.dumps(_header(format="other")), r"line 7: not a graphmem namespace export"),
    (json.dumps(_node(count=2 ** 64)), r"line 7: property 'count': the integer 18446744073709551616 "
                                       r"does not fit Neo4j's 64-bit integers"),
    (json.dumps(_node(tags=[1, "x"])), r"line 7: property 'tags': a list mixing int and str"),
    (json.dumps(_node(tags=[["x"]])), r"line 7: property 'tags': a list inside a list"),
    (json.dumps(_node(**{"": 1})), r"line 7: an empty property key"),
])
def test_damaged_lines_name_the_file_and_line(text: str, message: str) -> None:
    with pytest.raises(InputFormatError, match=message):
        parse_line(text, "f.jsonl", 7)


def test_a_newer_version_names_both_versions_and_what_to_do() -> None:
    with pytest.raises(FormatVersionError) as caught:
        parse_line(json.dumps(_header(version=2, graphmem="9.0.0")), "old.jsonl", 1)
    message = str(caught.value)
    assert "old.jsonl: format version 2" in message and "'9.0.0'" in message
    assert "reads (version 1)" in message and "format version 2, or export" in message
    assert isinstance(parse_line(json.dumps(_header()), "f", 1), Header)


def _write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _end(nodes: dict, types: dict | None = None) -> dict:
    types = types or {}
    return {"kind": "end", "nodes": sum(nodes.values()), "relationships": sum(types.values()),
            "labels": nodes, "types": types}


def test_the_end_line_tells_a_truncated_file(tmp_path: Path) -> None:
    good = _write(tmp_path / "good.jsonl", [_header(), _node(text="a"), _end({"Cue": 1})])
    assert read_end(good) == EndLine(**_end({"Cue": 1})) and read_end(good).lines == 1
    cut = tmp_path / "cut.jsonl"
    cut.write_text(good.read_text().splitlines(keepends=True)[0]
                   + good.read_text().splitlines(keepends=True)[1][:40])
    with pytest.raises(InputFormatError, match=r"cut\.jsonl: line 2: the file ends without its "
                                               r"end line: it is truncated"):
        read_end(cut)
    blank = tmp_path / "blank.jsonl"
    blank.write_text(good.read_text() + "\n  \n")
    assert read_end(blank) == read_end(good)
    check_file(blank, read_end(blank), None)
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(InputFormatError, match="empty"):
        read_end(tmp_path / "empty.jsonl")


def test_the_first_pass_checks_order_and_counts(tmp_path: Path) -> None:
    rel = {"kind": "relationship", "type": "HAS_TAG", "start": "c1", "start_label": "Cue",
           "end": "t1", "end_label": "Tag", "properties": {}}
    tag = _node("Tag", "t1", text="x", cue_id="c1")
    ok = _write(tmp_path / "ok.jsonl", [_header(), _node(text="a"), tag, rel,
                                        _end({"Cue": 1, "Tag": 1}, {"HAS_TAG": 1})])
    check_file(ok, read_end(ok), None)
    assert read_header(ok).namespace == "team-a"
    late = _write(tmp_path / "late.jsonl", [_header(), _node(text="a"), rel, tag,
                                            _end({"Cue": 1, "Tag": 1}, {"HAS_TAG": 1})])
    with pytest.raises(InputFormatError, match=r"late\.jsonl: line 4: a node line after "
                                               r"relationship lines"):
        check_file(late, read_end(late), None)
    short = _write(tmp_path / "short.jsonl", [_header(), _node(text="a"), _end({"Cue": 2})])
    with pytest.raises(InputFormatError, match=r"line 3: the end line counts 2 nodes .* the file "
                                               r"holds 1"):
        check_file(short, read_end(short), None)
    bad = _write(tmp_path / "bad.jsonl", [_header(), _node(text="a"), _end({"Cue": 1})])
    lines = bad.read_text().splitlines()
    bad.write_text("\n".join([lines[0], lines[1][:-3] + "?", lines[2]]) + "\n")
    with pytest.raises(InputFormatError, match=r"bad\.jsonl: line 2: not JSON"):
        check_file(bad, read_end(bad), None)
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(ok.read_bytes().replace(b'"a"', b'"\xe9"'))
    with pytest.raises(InputFormatError, match=r"latin\.jsonl: line 2: not UTF-8"):
        check_file(latin, read_end(latin), None)
    twice = _write(tmp_path / "twice.jsonl", [_header(), _node(text="a"), _node(text="b"),
                                              _end({"Cue": 2})])
    with pytest.raises(InputFormatError, match=r"twice\.jsonl: line 3: Cue node 'c1' again "
                                               r"\(first on line 2\)"):
        check_file(twice, read_end(twice), None)


# ----------------------------------------------------------------------------- vocabulary
def _template(name: str) -> list[str]:
    text = (CYPHER / f"{name}.cypher").read_text()
    return [v.strip() for v in re.search(r"// template: Label = (.*)", text).group(1).split("|")]


def test_the_cypher_files_write_out_exactly_the_schema_vocabulary() -> None:
    assert node_labels() == tuple(label_of(cls) for cls in ALL_NODE_CLASSES)
    assert _template("export_nodes") == list(node_labels()) == _template("import_nodes")
    starts = [label for label in node_labels()
              if any(s == label for s, _, _ in relationship_triples())]
    assert _template("import_relationships") == starts
    text = (CYPHER / "import_relationships.cypher").read_text()
    written = re.findall(r"CASE WHEN row\.type = '(\w+)' THEN \[1\] ELSE \[\] END \|\n"
                         r"  CREATE \(a\)-\[r:(\w+)\]->\(b\)", text)
    assert [a for a, b in written if a == b] == list(relationship_types())
    assert len(relationship_triples()) == 36 and "NEXT_TURN" in relationship_types()
    registry = CypherRegistry.load()
    assert "{{MEMORY_LABELS}}" not in registry.get("lifecycle/import_relationships@Tag").text


# ----------------------------------------------------------------------------- ids
def test_every_schema_id_property_is_a_reference_or_a_caller_key() -> None:
    from neomodel import StringProperty

    named = {name for cls in ALL_NODE_CLASSES
             for name, prop in cls.defined_properties(rels=False, aliases=False).items()
             if isinstance(prop, StringProperty) and name.endswith("_id")}
    assert named <= set(NODE_REFERENCES) | set(CALLER_KEYS)
    assert {"cue_id", "topic_id", "prev_id", "next_id", "query_id", "insight_id"} <= named


def test_ids_are_rederived_from_keys_or_mapped(tmp_path: Path) -> None:
    ids = IdMap("src", "dst", directory=tmp_path)
    try:
        event = node_id("src", "event", "conv-1", "D1:3")
        cue = node_id("src", "cue", "caroline")
        tag = node_id("src", "tag", cue, "goes to a support group")
        random_id = "f0c1d2e3-0000-4000-8000-000000000000"
        ids.learn("Event", event, {"conversation": "conv-1", "source_ids": ["D1:3"]})
        ids.learn("Cue", cue, {"text": "caroline"})
        ids.learn("Tag", tag, {"cue_id": cue, "text": "goes to a support group"})
        ids.learn("Cue", random_id, {"text": "caroline"})  # a key that does not check out
        ids.flush()
        state = node_id("src", "state", "conv-1", "D1:3")  # predicted from its event
        new, rederived = ids.lookup([event, cue, tag, state, random_id])
        assert new[event] == node_id("dst", "event", "conv-1", "D1:3")
        assert new[tag] == node_id("dst", "tag", node_id("dst", "cue", "caroline"),
                                   "goes to a support group")
        assert new[state] == node_id("dst", "state", "conv-1", "D1:3")
        assert new[random_id] == node_id("dst", "imported", random_id)
        assert rederived == {event, cue, tag, state}
    finally:
        ids.close()
    assert not any(tmp_path.iterdir())


def test_references_and_chain_keys_are_translated() -> None:
    props = {"prev_id": "a", "topic_id": "t", "sort_key": "2023-05-08T13:56:00.000000|000000003|e",
             "conversation_id": "a", "text": "a"}
    out = translate(props, {"a": "A", "t": "T", "e": "E"}, NODE_REFERENCES)
    assert out == {"prev_id": "A", "topic_id": "T",
                   "sort_key": "2023-05-08T13:56:00.000000|000000003|E",
                   "conversation_id": "a", "text": "a"}
    assert props["prev_id"] == "a" and suffix_id("no bar") is None


def test_the_namespace_token_is_recomputed_keeping_a_suffix() -> None:
    from graphmem.lifecycle.rekey import retoken
    from graphmem.retrieval.text import namespace_token

    source, target = namespace_token("src"), namespace_token("dst")
    assert retoken(source, "src", "dst") == target
    assert retoken(source + "archived", "src", "dst") == target + "archived"
    assert retoken("ns-of-something-else", "src", "dst") == target
    assert retoken(None, "src", "dst") is None


def test_the_size_query_counts_every_bookkeeping_label() -> None:
    from graphmem.schema import BOOKKEEPING_LABELS

    text = (CYPHER / "count_nodes.cypher").read_text()
    union = re.search(r"MATCH \(n:\{\{MEMORY_LABELS\}\}\|([\w|]+)\)", text).group(1).split("|")
    assert union == [label_of(cls) for cls in BOOKKEEPING_LABELS]

"""List parameters reach the driver as :class:`BoltList`: equal to the list, a ``repr`` of its
length (the driver formats every RUN message's parameters for its debug log on every query)."""

from __future__ import annotations

from graphmem.graph.runner import BoltList, bolt_params


def test_lists_and_tuples_become_bolt_lists_with_a_short_repr() -> None:
    rows = [{"id": "e1", "embedding": [0.25] * 384}, {"id": "e2", "embedding": [0.5] * 384}]
    sent = bolt_params({"namespace": "ns", "rows": rows, "pair": ("a", "b"), "k": 3})
    assert isinstance(sent["rows"], BoltList) and isinstance(sent["pair"], BoltList)
    assert sent["rows"] == rows and sent["rows"][0] is rows[0]  # shallow: the same rows
    assert list(sent["pair"]) == ["a", "b"]
    assert sent["namespace"] == "ns" and sent["k"] == 3
    assert repr(sent["rows"]) == "<list of 2>" and repr(sent["pair"]) == "<list of 2>"
    assert repr(sent) == "{'namespace': 'ns', 'rows': <list of 2>, 'pair': <list of 2>, 'k': 3}"


def test_the_caller_params_are_not_changed() -> None:
    ids = ["a", "b"]
    params = {"ids": ids}
    bolt_params(params)
    assert params["ids"] is ids and type(params["ids"]) is list

"""The solution side's decoding of the judge's arguments, and the judge's test globals.

Both were rewritten for speed (issue 30: a table of lambdas built per decoded scalar, a class
made per sample); these pin what they must still do: every plain value the judge sends arrives
as the same value of the exact builtin type, an unknown tag is refused, and a name the tests do
not define resolves through the sample's own lookup.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from rlvr_code._sandbox_judge import JudgeGlobals
from rlvr_code._sandbox_solution import _decode_in_solution
from rlvr_code._sandbox_wire import encode

VALUES = [
    None,
    True,
    False,
    0,
    -(10**40),
    1.5,
    -0.0,
    complex(1.5, -2.0),
    "",
    "é 漢字 \U0001f600",
    b"\x00\xff",
    [1, "a", [None]],
    (1, (2.5,)),
    {1, "x"},
    frozenset({(1, 2)}),
    {"k": [1, {"n": (True,)}], 3: None},
]


def exact(a: Any, b: Any) -> bool:
    """Equal, and of the same type all the way down (``1 == True`` is not enough)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(exact(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(exact(a[k], b[k]) for k in a)
    if isinstance(a, float):
        return math.copysign(1, a) == math.copysign(1, b) and a == b
    return bool(a == b)


# Ids by position: a set's repr follows the string hash seed, which differs between xdist workers.
@pytest.mark.parametrize("value", VALUES, ids=[f"{type(v).__name__}-{i}" for i, v in enumerate(VALUES)])
def test_every_plain_value_arrives_as_itself(value):
    assert exact(_decode_in_solution(encode(value, {}), {}, {}), value)


def test_nan_and_infinities_arrive():
    assert math.isnan(_decode_in_solution(encode(float("nan"), {}), {}, {}))
    assert _decode_in_solution(encode(float("-inf"), {}), {}, {}) == float("-inf")


@pytest.mark.parametrize("item", [["Q", 1], ["?"], ["i", "1"]])
def test_an_unknown_tag_is_refused(item):
    with pytest.raises(KeyError):
        _decode_in_solution(item, {}, {})


def test_a_reference_and_a_name_resolve_in_the_solution():
    target = object()
    assert _decode_in_solution(["R", 7], {7: target}, {}) is target
    assert _decode_in_solution(["R", ["name", "f"]], {}, {"f": len}) is len
    with pytest.raises(NameError):
        _decode_in_solution(["R", ["name", "g"]], {}, {})


def test_test_globals_resolve_missing_names_through_their_own_lookup():
    asked: list[str] = []
    first, second = JudgeGlobals(), JudgeGlobals()
    first.missing = lambda name: asked.append(name) or f"first:{name}"
    second.missing = lambda name: f"second:{name}"
    first["defined"] = 1
    exec("a = defined\nb = undefined", first)
    assert (first["a"], first["b"]) == (1, "first:undefined")
    assert asked == ["undefined"]
    exec("c = undefined", second)  # each sample's globals keep their own lookup
    assert second["c"] == "second:undefined"
    assert "missing" not in first  # the lookup is no global of the tests

"""Standard-library values cross the sandbox by value, rebuilt as genuine instances on the other side.

A right answer returned as a Fraction, Decimal, deque, range, Counter, OrderedDict or dict view
used to stay in the solution as a handle whose equality is identity (an honest answer scored 0).
Now only those exact types travel as their plain parts and are rebuilt from the receiver's own
classes: a subclass, or a class the solution swapped into the module, can choose a value but
never the behaviour of the comparison.
"""

from __future__ import annotations

from collections import Counter, OrderedDict, deque
from decimal import Decimal
from fractions import Fraction

import pytest

from rlvr_code._sandbox_link import Link, SolutionError
from rlvr_code._sandbox_wire import build_stdlib, encode, has_ref
from tests.code.helpers_code import asserts_task, fenced
from tests.helpers.sandbox import needs_bwrap


def _link() -> Link:
    return Link(-1, -1, deadline=0.0)


@pytest.mark.parametrize(
    "value",
    [
        Fraction(3, 2),
        Fraction(-7, 10**30),
        Decimal("1.50"),
        Decimal("-0"),
        Decimal("NaN"),
        deque([1, (2, 3)], maxlen=4),
        deque(),
        range(0, 10, 3),
        range(-5, 5, -1),
        Counter("abracadabra"),
        OrderedDict([("b", 1), ("a", 2)]),
        {"x": 1, "y": 2}.keys(),
        {"x": 1, "y": 2}.items(),
        [Fraction(1, 3), {"k": deque([Decimal("2")])}],
    ],
    ids=repr,
)
def test_a_value_round_trips_to_the_same_type_and_value(value):
    back = _link().decode(encode(value, {}))
    assert type(back) is type(value)
    if type(value) is Decimal and value.is_nan():
        assert back.is_nan()
    else:
        assert back == value
    if isinstance(value, OrderedDict):
        assert list(back) == list(value)  # order kept: OrderedDicts compare by it


def test_values_view_keeps_its_items_and_nothing_is_a_handle():
    encoded = encode({1: "a", 2: "b"}.values(), {})
    assert not has_ref(encoded)
    assert list(_link().decode(encoded)) == ["a", "b"]


def test_a_subclass_stays_a_handle():
    class Always(Fraction):
        def __eq__(self, other):
            return True

    refs: dict = {}
    assert encode(Always(1, 2), refs)[0] == "R" and refs


@pytest.mark.parametrize(
    "item",
    [
        ["V", "fraction", [["I", "1"], ["I", "0"]]],
        ["V", "fraction", [["I", "1"], ["I", "-2"]]],
        ["V", "fraction", [["F", "1.5"], ["I", "2"]]],
        ["V", "decimal", [["S", "not a number"]]],
        ["V", "decimal", [["S", "9" * 200_000]]],
        ["V", "range", [["I", "1"], ["I", "2"], ["I", "0"]]],
        ["V", "range", [["I", "1"], ["I", "2"]]],
        ["V", "deque", [["L", []], ["I", "-1"]]],
        ["V", "keys", [["L", [["L", []]]]]],  # an unhashable key
        ["V", "items", [["L", [["T", [["I", "1"]]]]]]],
        ["V", "counter", [["L", []]]],
        ["V", "nope", []],
        ["V", ["fraction"], []],
        ["V", "fraction"],
        ["V", "fraction", "12"],
    ],
)
def test_a_malformed_value_is_refused_as_the_solutions_fault(item):
    with pytest.raises(SolutionError):
        _link().decode(item)


def test_build_raises_value_error_only():
    with pytest.raises(ValueError):
        build_stdlib("fraction", [1, 0])


@needs_bwrap
@pytest.mark.parametrize(
    ("program", "tests", "reward"),
    [
        # The tests pass these values as arguments too, and use their methods on the answer.
        (
            "def f(x):\n    return x * 2\n",
            ["from fractions import Fraction\nassert f(Fraction(1, 3)) == Fraction(2, 3)"],
            1.0,
        ),
        (
            "def f(d):\n    d.rotate(1)\n    return d\n",
            ["from collections import deque\nassert f(deque([1, 2])) == deque([2, 1])"],
            1.0,
        ),
        (
            "from collections import Counter\ndef f(s):\n    return Counter(s)\n",
            ["assert f('aab').most_common(1) == [('a', 2)]"],
            1.0,
        ),
        # Always-equal objects disguised as these types score 0.
        (
            "from fractions import Fraction\nclass A(Fraction):\n    def __eq__(self, o):\n        return True\n"
            "def f(x):\n    return A(99)\n",
            ["assert f(1) == 2"],
            0.0,
        ),
        (
            "import fractions\nclass A(fractions.Fraction):\n    def __eq__(self, o):\n        return True\n"
            "    __hash__ = fractions.Fraction.__hash__\n"
            "fractions.Fraction = A\ndef f(x):\n    return A(99)\n",
            ["assert f(1) == 2"],
            0.0,
        ),
        ("import decimal\ndef f(x):\n    return decimal.Decimal('NaN')\n", ["assert f(1) != f(1)"], 1.0),
    ],
)
def test_tests_see_genuine_values(program, tests, reward):
    from rlvr_code.verifier import CodeVerifier

    verdict = CodeVerifier(timeout_s=8.0).verify(asserts_task(tests, names=("f",)), fenced(program))
    assert verdict.reward == reward, verdict.details

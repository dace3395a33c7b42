"""The wider cheap rules (red team round 11): what ``derived_rules.RULES`` did not try.

Round 10's rules read one argument as it is or by its length, sum, largest or smallest item,
first or last item, sorted or reversed form or set. Under ``-v7`` 43 of MBPP's 973 tasks still had
hidden tests that another rule needing no understanding of the task passes, while it contradicts
the prompt's own example (so a program answering that example from a table and the rule otherwise
scored 1): ``n + 1`` (MBPP/48, /801), ``n - 1`` (/84, /375), ``n // 2`` (/318, /968), the
penultimate or middle item (/101, /793), the product of two arguments (/14), one argument's
remainder by another (/609), their quotient (/292), the distinct items (/428, /940), the flattened
list (/297), the tuple of a list (/310), the shortest item (/829).

The mechanism is the families, not those tasks: every rule here is one of

* a number's neighbour or simple function: ``n + 1``, ``n - 1``, ``2n``, ``n // 2``, ``n * n``,
  ``-n``, ``|n|``, ``n % 2``, whether it is even, odd or positive, its decimal text;
* truthiness: ``bool(v)``, ``not v``;
* an item or a part: the second, middle or penultimate item, all but the first or the last;
* a count or an aggregate: the number of distinct items, ``len - 1``, the product, the mean, the
  largest minus the smallest, ``any``, ``all``;
* an order or a shape: the distinct items in order or sorted, descending order, the list or tuple
  of it, the flattened items, the first plus the last;
* the longest or shortest item, the largest or smallest item's length, ordering or choosing pairs
  by their second item, the sum or largest of nested items;
* a string's case and spaces: upper, lower, title, capitalised, swapped, stripped, split, spaces
  removed;
* two arguments (any ordered pair of the first four): ``+ - * / // %``, a small power, the larger
  or smaller, ``== != < >``, indexing, membership, ``count``, ``index``, the first ``b`` items,
  all but the first ``b``.

A rule here counts as round 10's do, on the hidden tests alone: one agreeing with every example
shown too may be the task's function (``a + b``) or not (MBPP/71 "comb sort": the sorted distinct
items pass its three tests, none holding a repeat; 27 MBPP tasks paid such a rule with no table at
all); the reference's run on the wide inputs tells, and derives nothing where it is the function.

Each rule runs on the tests' literal arguments only and is bounded: no power past 2**64-ish, no
sequence repeated more than ``_MAX_REPEAT`` times, so no literal makes one slow or large.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

Rule = Callable[[tuple[Any, ...]], Any]
_ARGUMENTS = 4
_MAX_REPEAT = 100
_SEQUENCE = (list, tuple, str)


def _no_rule() -> Any:
    raise TypeError("the rule does not apply")


def _number(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    # bool is an int to Python; as an argument it is a flag, not a number.
    return lambda v: f(v) if type(v) in (int, float) else _no_rule()


def _sequence(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: f(v) if isinstance(v, _SEQUENCE) else _no_rule()


def _text(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: f(v) if isinstance(v, str) else _no_rule()


def _same_kind(items: Any, v: Any) -> Any:
    return "".join(items) if isinstance(v, str) else type(v)(items)


_UNARY: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("plus1", _number(lambda v: v + 1)),
    ("minus1", _number(lambda v: v - 1)),
    ("double", _number(lambda v: v * 2)),
    ("half", _number(lambda v: v // 2)),
    ("square", _number(lambda v: v * v)),
    ("negated", _number(operator.neg)),
    ("abs", _number(abs)),
    ("mod2", _number(lambda v: v % 2)),
    ("even", _number(lambda v: v % 2 == 0)),
    ("odd", _number(lambda v: v % 2 == 1)),
    ("positive", _number(lambda v: v > 0)),
    ("text", _number(str)),
    ("truthy", bool),
    ("falsy", operator.not_),
    ("second", _sequence(lambda v: v[1])),
    ("middle", _sequence(lambda v: v[len(v) // 2])),
    ("penultimate", _sequence(lambda v: v[-2])),
    ("but_first", _sequence(lambda v: v[1:])),
    ("but_last", _sequence(lambda v: v[:-1])),
    ("distinct_count", _sequence(lambda v: len(set(v)))),
    ("len_minus1", _sequence(lambda v: len(v) - 1)),
    ("product", _sequence(math.prod)),
    ("mean", _sequence(lambda v: sum(v) / len(v))),
    ("spread", _sequence(lambda v: max(v) - min(v))),
    ("any", _sequence(any)),
    ("all", _sequence(all)),
    ("distinct", _sequence(lambda v: _same_kind(dict.fromkeys(v), v))),
    ("sorted_distinct", _sequence(lambda v: sorted(set(v)))),
    ("descending", _sequence(lambda v: _same_kind(sorted(v, reverse=True), v))),
    ("as_list", _sequence(list)),
    ("as_tuple", _sequence(tuple)),
    ("flattened", _sequence(lambda v: [item for part in v for item in part])),
    ("first_plus_last", _sequence(lambda v: v[0] + v[-1])),
    ("longest", _sequence(lambda v: max(v, key=len))),
    ("shortest", _sequence(lambda v: min(v, key=len))),
    ("longest_len", _sequence(lambda v: max(len(x) for x in v))),
    ("shortest_len", _sequence(lambda v: min(len(x) for x in v))),
    ("by_second", _sequence(lambda v: _same_kind(sorted(v, key=operator.itemgetter(1)), v))),
    ("max_by_second", _sequence(lambda v: max(v, key=operator.itemgetter(1)))),
    ("min_by_second", _sequence(lambda v: min(v, key=operator.itemgetter(1)))),
    ("nested_sum", _sequence(lambda v: sum(sum(x) for x in v))),
    ("nested_max", _sequence(lambda v: max(max(x) for x in v))),
    ("upper", _text(str.upper)),
    ("lower", _text(str.lower)),
    ("title", _text(str.title)),
    ("capitalized", _text(str.capitalize)),
    ("swapped", _text(str.swapcase)),
    ("stripped", _text(str.strip)),
    ("split", _text(str.split)),
    ("unspaced", _text(lambda v: v.replace(" ", ""))),
)


def _power(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int and 0 <= b <= 64 and abs(a) <= 1 << 32:
        return a**b
    if type(a) is float and type(b) in (int, float) and abs(b) <= 64:
        return a**b
    return _no_rule()


def _times(a: Any, b: Any) -> Any:
    # A sequence times a count is a repeat: bounded, or a literal 10**9 would build gigabytes.
    for count in (a, b):
        if isinstance(count, int) and not (-_MAX_REPEAT <= count <= _MAX_REPEAT):
            if isinstance(a, _SEQUENCE) or isinstance(b, _SEQUENCE):
                return _no_rule()
    return a * b


_BINARY: tuple[tuple[str, Callable[[Any, Any], Any]], ...] = (
    ("add", operator.add),
    ("sub", operator.sub),
    ("mul", _times),
    ("truediv", operator.truediv),
    ("floordiv", operator.floordiv),
    ("mod", lambda a, b: a % b if not isinstance(a, str) else _no_rule()),  # str % is formatting
    ("pow", _power),
    ("larger", max),
    ("smaller", min),
    ("eq", operator.eq),
    ("ne", operator.ne),
    ("lt", operator.lt),
    ("gt", operator.gt),
    ("item", lambda a, b: a[b] if type(b) is int else _no_rule()),
    ("contains", lambda a, b: b in a),
    ("count", lambda a, b: a.count(b)),
    ("index", lambda a, b: a.index(b)),
    ("take", lambda a, b: a[:b] if type(b) is int else _no_rule()),
    ("drop", lambda a, b: a[b:] if type(b) is int else _no_rule()),
)


def _one(position: int, unary: Callable[[Any], Any]) -> Rule:
    return lambda args: unary(args[position])


def _two(first: int, second: int, binary: Callable[[Any, Any], Any]) -> Rule:
    return lambda args: binary(args[first], args[second])


def wide_rules() -> list[tuple[str, Rule]]:
    """Every wider rule: ``(name, rule)``, the name saying which argument(s) and what of them."""
    out: list[tuple[str, Rule]] = []
    for position in range(_ARGUMENTS):
        for name, unary in _UNARY:
            out.append((f"{name}(arg{position})", _one(position, unary)))
    for first in range(_ARGUMENTS):
        for second in range(_ARGUMENTS):
            if first != second:
                for name, binary in _BINARY:
                    out.append((f"{name}(arg{first}, arg{second})", _two(first, second, binary)))
    return out

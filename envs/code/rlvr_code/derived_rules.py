"""Hidden tests a cheap rule of the arguments passes (red team round 10, ``hidden_tests="rules"``).

``derived.constant_passable`` caught tasks whose hidden tests one value passes: a program answering
the prompt's examples from a table and that value otherwise scored 1. The same program with a
rule in place of the value does too where every hidden test happens to fit the rule: MBPP/309
``maximum(a, b)`` (its hidden tests all have the larger number first: echoing the first argument
passes), MBPP/591 "swap the first and last item" (its hidden lists read the same reversed), MBPP/42
"sum of repeated elements" (the largest item). 20 of MBPP's 973 ``-v6`` tasks paid one of nine such
rules behind the prompt's example (``rlvr-envs redteam --classes code_guess``).

The mechanism, not the attacker's list: a rule is any of the ``RULES`` (the value of one argument,
or its length, sum, largest or smallest item, first or last item, sorted or reversed form, its
set of items) applied to ANY positional argument, and the empty value of the expected answers'
type. Where one passes every hidden test (``rule_passable``) the reference runs on the wide inputs
(``derived._wide_results``, one run) and each rule that passed gets a derived test it fails. The
rules run here on the tests' own literal arguments (at most ``MAX_LITERAL`` characters each): no
program of the task's runs outside the sandbox.

Also here: tests on float answers (``float_assert``, within ``FLOAT_TOLERANCE``) for a task whose
hidden tests one value still passes after ``guard`` because its reference answers floats, which
``guard`` leaves out (MBPP/137 "ratio of zeroes": every hidden test expects 0.0).
"""

from __future__ import annotations

import ast
import copy
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from rlvr_code.derived_inputs import _plain as plain
from rlvr_code.scoring import plan_for
from rlvr_envs.python_ast import parse_expression, parse_module
from rlvr_envs.types import Task

Rule = Callable[[tuple[Any, ...]], Any]


def _sorted(value: Any) -> Any:
    if isinstance(value, str):
        return "".join(sorted(value))
    return type(value)(sorted(value))


def _reversed(value: Any) -> Any:
    if isinstance(value, (str, list, tuple)):
        return value[::-1]
    raise TypeError("not a sequence")


# One argument, transformed by something that needs no understanding of the task. Each takes the
# argument's value (a literal: str, list, tuple, dict, set, int, float, bool or None).
_UNARY: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("itself", lambda v: v),
    ("len", len),
    ("sum", sum),
    ("max", max),
    ("min", min),
    ("first", lambda v: v[0]),
    ("last", lambda v: v[-1]),
    ("sorted", _sorted),
    ("reversed", _reversed),
    ("set", lambda v: set(v) if isinstance(v, (list, tuple, str)) else _no_rule()),
)
_ARGUMENTS = 4
"""Positional arguments a rule may read (the first four: MBPP's and HumanEval's calls take fewer)."""


def _no_rule() -> Any:
    raise TypeError("the rule does not apply")


def rules() -> list[tuple[str, Rule]]:
    """Every rule: ``(name, rule)``, the name saying which argument and what of it."""
    out: list[tuple[str, Rule]] = []
    for position in range(_ARGUMENTS):
        for name, unary in _UNARY:
            out.append((f"{name}(arg{position})", _on_argument(position, unary)))
    return out


def _on_argument(position: int, unary: Callable[[Any], Any]) -> Rule:
    return lambda args: unary(args[position])


def _applies(rule: Rule, args: tuple[Any, ...], expected: Any) -> bool:
    """Whether ``rule`` answers ``expected`` on ``args`` (as the judge's ``==`` would see it)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bool(rule(args) == expected)
    except Exception:  # a rule that does not apply to these arguments (max of [], len of an int)
        return False


def called_tests(task: Task, sources: list[str]) -> list[tuple[tuple[Any, ...], Any]]:
    """``(arguments, expected)`` for each of ``sources`` that is one call of a solution name with
    literal positional arguments compared with a literal (``f(x) == y``, ``y == f(x)``, ``f(x) is
    y``, ``assert f(x)``: True, ``assert not f(x)``: False); the others are left out (a wrapped
    call, ``set(f(x)) == ...``, is not a rule's answer)."""
    names = _solution_names(task)
    out: list[tuple[tuple[Any, ...], Any]] = []
    for source in sources:
        found = _called(source, names)
        if found is not None:
            out.append(found)
    return out


def _solution_names(task: Task) -> set[str]:
    answer = task.answer if isinstance(task.answer, dict) else {}
    names = {str(n) for n in answer.get("solution_names") or ()}
    if answer.get("entry_point"):
        names |= {str(answer["entry_point"]), "candidate"}
    return names


def _called(source: str, names: set[str]) -> tuple[tuple[Any, ...], Any] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = parse_module(source.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        return None
    test = tree.body[0].test
    expected: Any
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        call, expected = test.operand, False
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)):
        call, other = (test.left, test.comparators[0])
        if not isinstance(call, ast.Call):
            call, other = other, call
        try:
            expected = ast.literal_eval(other)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    else:
        call, expected = test, True
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in names):
        return None
    if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    try:
        args = tuple(ast.literal_eval(a) for a in call.args)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return args, expected


def passing_rules(task: Task) -> list[str]:
    """The rules that pass every hidden test of the task (a constant is ``derived``'s: not here).
    None pass a task without hidden tests of the mirrored shape, or with any other hidden test (a
    rule cannot be seen to pass a test this module does not read). A rule passing the shown
    examples too may be the function (``a + b``) or not (MBPP/71 "comb sort": the sorted distinct
    items pass all its tests, none holding a repeat): the reference's wide run tells, and derives
    nothing where the rule is the function."""
    hidden = [t.source for t in plan_for(task).tests if not t.public]
    called = called_tests(task, hidden)
    if not hidden or len(called) != len(hidden):
        return []
    every = [*rules(), *_wide()]
    return [name for name, rule in every if all(_applies(rule, args, want) for args, want in called)]


_wide_rules: tuple[tuple[str, Rule], ...] | None = None


def _wide() -> tuple[tuple[str, Rule], ...]:
    # Built on first use (~430 closures), not at import; two threads building it build the same.
    global _wide_rules
    if _wide_rules is None:
        from rlvr_code.derived_rules_wide import wide_rules

        _wide_rules = tuple(wide_rules())
    return _wide_rules


_passable: OrderedDict[str, bool] = OrderedDict()
_passable_lock = threading.Lock()


def rule_passable(task: Task) -> bool:
    """Whether a program answering the prompt's examples from a table and one of the rules
    otherwise passes every hidden test (cached per task content: the verifier asks on every
    sample, and reading the hidden tests costs ~0.1 ms a test)."""
    key = f"{task.id}|{task.fingerprint}"
    with _passable_lock:
        known = _passable.get(key)
    if known is None:
        known = bool(passing_rules(task))
        with _passable_lock:
            _passable[key] = known
            while len(_passable) > 4096:
                _passable.popitem(last=False)
    return known


def picked_against_rules(task: Task, pool: list[tuple[str, Any]], limit: int) -> list[str]:
    """Up to ``limit`` asserts of ``pool`` (the reference's answers on wide inputs) chosen so that
    every rule passing the task's hidden tests fails at least one of them where the pool allows:
    each pick is the assert that the most rules still passing fail."""
    by_name = dict(rules()) | dict(_wide())
    alive = [by_name[name] for name in passing_rules(task)]
    names = _solution_names(task)
    read = [(source, called_tests(task, [source]) or _within_tolerance(source, names)) for source, _ in pool]
    chosen: list[str] = []
    while alive and len(chosen) < limit:
        best: tuple[int, str, list[Rule]] | None = None
        for source, called in read:
            if not called or source in chosen:
                continue
            args, want = called[0]
            if isinstance(want, float):  # a test within a tolerance: the rule fails it only outside
                beaten = [rule for rule in alive if not _near(rule, args, want)]
            else:
                beaten = [rule for rule in alive if not _applies(rule, args, want)]
            if beaten and (best is None or len(beaten) > best[0]):
                best = (len(beaten), source, beaten)
        if best is None:
            break
        chosen.append(best[1])
        alive = [rule for rule in alive if rule not in best[2]]
    return chosen


def _within_tolerance(source: str, names: set[str]) -> list[tuple[tuple[Any, ...], Any]]:
    """``[(arguments, r)]`` for ``float_assert``'s ``assert abs(f(x) - r) <= bound``, else ``[]``."""
    try:
        test = parse_module(source.strip()).body[0]
    except (SyntaxError, ValueError, IndexError, MemoryError, RecursionError):
        return []
    node = test.test if isinstance(test, ast.Assert) else None
    if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Call) and len(node.left.args) == 1):
        return []
    inner = node.left.args[0]
    if not (isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub) and isinstance(inner.left, ast.Call)):
        return []
    call = inner.left
    if not (isinstance(call.func, ast.Name) and call.func.id in names) or call.keywords:
        return []
    try:
        return [(tuple(ast.literal_eval(a) for a in call.args), float(ast.literal_eval(inner.right)))]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return []


def _near(rule: Rule, args: tuple[Any, ...], want: float) -> bool:
    """Whether ``rule`` passes ``float_assert``'s test of ``want`` on ``args``."""
    try:
        got = rule(args)
        return bool(abs(got - want) <= FLOAT_TOLERANCE * max(1.0, abs(want)))
    except Exception:  # a rule that does not apply, or an answer no number is near
        return False


# -- float answers (a task whose hidden tests one value passes and whose reference answers floats) --
def close(value: Any, constant: Any) -> bool:
    if isinstance(value, float) and isinstance(constant, (int, float)) and not isinstance(constant, bool):
        return abs(value - constant) <= FLOAT_TOLERANCE * max(1.0, abs(constant))
    try:
        return bool(value == constant) and type(value) is type(constant)
    except Exception:  # a literal's == of an odd type: not the same
        return False


FLOAT_TOLERANCE = 1e-6
"""Relative tolerance of a derived test on a float answer (``-v7``): an honest answer computed
another way (a sum in another order, ``x / n`` against ``x * (1 / n)``) differs in the last bits."""


def finite_float(value: Any) -> bool:
    return isinstance(value, float) and abs(value) < 1e300  # (nan fails the comparison too)


def float_assert(shown: Any, args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...], result: float) -> str | None:
    """``assert abs(call(x') - r) <= tol * max(1, abs(r))`` for a shown ``call(x) == literal``."""
    test = shown.test
    if not (isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.Eq)):
        return None
    if shown.call not in (test.left, test.comparators[0]) or not all(plain(a) for a in args):
        return None
    if not all(plain(v) for _, v in kwargs):
        return None
    call = ast.Call(
        func=copy.deepcopy(shown.call.func),
        args=[_value_node(a) for a in args],
        keywords=[ast.keyword(arg=k, value=_value_node(v)) for k, v in kwargs],
    )
    bound = FLOAT_TOLERANCE * max(1.0, abs(result))
    return f"assert abs({ast.unparse(call)} - {result!r}) <= {bound!r}"


def _value_node(value: Any) -> ast.expr:
    return parse_expression(repr(value)).body

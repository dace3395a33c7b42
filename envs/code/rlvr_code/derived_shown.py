"""The shown asserts hidden tests are derived from, and the derived asserts themselves.

``derived`` (which re-exports these names) decides which tasks need hidden tests and runs the
reference; this module only reads a task's shown tests (``shown_asserts``: one call of the solution
with literal arguments, compared with a value, or its truth value) and writes an assert of the same
shape for new arguments and the reference's result (``derived_assert``). Split from ``derived`` by
concern (red team round 13: the file had outgrown the project's ~600-line limit); no behaviour
changed.
"""

from __future__ import annotations

import ast
import copy
import warnings
from dataclasses import dataclass
from typing import Any

from rlvr_code.derived_inputs import Args, Kwargs
from rlvr_code.split import humaneval_asserts, solution_names
from rlvr_envs.python_ast import parse_expression, parse_module
from rlvr_envs.types import Task

NO_REFERENCE = "the prompt shows every test and the task has no reference solution to derive a hidden one from"
NOT_MIRRORED = (
    "the prompt shows every test and none is one call with literal arguments compared with a value "
    "(the shape hidden tests are derived from)"
)
STDIO_SHOWN = "the prompt shows every stdin/stdout case (no hidden case; inputs of unknown layout are not derived)"


@dataclass(frozen=True)
class _Shown:
    """A shown assert this module can mirror: its test expression, the solution call in it (with
    literal arguments) and the name the reference answers under."""

    test: ast.expr
    call: ast.Call
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]
    callee: str


def _parse(code: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = parse_module(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return tree


def _mirrorable(test: ast.expr, names: set[str], callee: str) -> _Shown | None:
    calls = [
        n for n in ast.walk(test) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
    ]
    if len(calls) != 1 or any(k.arg is None for k in calls[0].keywords):
        return None
    call = calls[0]
    try:
        args = tuple(ast.literal_eval(a) for a in call.args)
        kwargs = tuple((str(k.arg), ast.literal_eval(k.value)) for k in call.keywords)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    shape_ok = (
        test is call
        or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and test.operand is call)
        or (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and (_holds(test.left, call) != _holds(test.comparators[0], call))
            and (
                isinstance(test.ops[0], ast.Eq)
                or (isinstance(test.ops[0], ast.Is) and call in (test.left, test.comparators[0]))
            )
        )
    )
    if not shape_ok:
        return None
    called = call.func.id if isinstance(call.func, ast.Name) else ""
    return _Shown(test, call, args, kwargs, callee or called)


def _holds(node: ast.AST, call: ast.Call) -> bool:
    return any(n is call for n in ast.walk(node))


def _shown_asserts(task: Task) -> list[_Shown] | str:
    """The shown tests this module can mirror, or why there are none."""
    answer = task.answer if isinstance(task.answer, dict) else {}
    kind = answer.get("format")
    if kind == "stdio":
        return STDIO_SHOWN
    if not str(answer.get("canonical_solution") or "").strip():
        return NO_REFERENCE
    found: list[_Shown] = []
    if kind == "humaneval":
        entry = str(answer.get("entry_point") or "")
        tree = _parse(str(answer.get("test") or ""))
        names = {entry}
        for node in getattr(tree, "body", []):
            if isinstance(node, ast.FunctionDef) and node.name == "check" and node.args.args:
                names.add(node.args.args[0].arg)
        for item in humaneval_asserts(str(answer.get("test") or ""), entry):
            shown = _mirrorable(item.node.test, names, entry) if item.counted else None
            if shown is not None:
                found.append(shown)
    elif kind == "asserts":
        listed = answer.get("solution_names")
        names = {str(n) for n in listed} if isinstance(listed, list) else set()
        names = names or set(solution_names(str(answer.get("canonical_solution") or "")))
        for source in answer.get("tests") or ():
            tree = _parse(str(source))
            body = getattr(tree, "body", [])
            if len(body) == 1 and isinstance(body[0], ast.Assert):
                shown = _mirrorable(body[0].test, names, "")
                if shown is not None:
                    found.append(shown)
    return found or NOT_MIRRORED


# -- the derived asserts -------------------------------------------------------------------------


def _value_node(value: Any) -> ast.expr:
    return parse_expression(repr(value)).body


def _swap_deep(node: ast.AST, old: ast.AST, new: ast.AST) -> ast.AST:
    """A copy of ``node`` with the subtree ``old`` replaced by ``new`` (``node`` is left as it is)."""
    if node is old:
        return new
    fresh = copy.copy(node)
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            setattr(fresh, name, [_swap_deep(v, old, new) if isinstance(v, ast.AST) else v for v in value])
        elif isinstance(value, ast.AST):
            setattr(fresh, name, _swap_deep(value, old, new))
    return fresh


def derived_assert(shown: _Shown, args: Args, kwargs: Kwargs, result: Any) -> str | None:
    """The assert checking the solution on ``args`` as ``shown`` checks it on its own arguments."""
    call = ast.Call(
        func=copy.deepcopy(shown.call.func),
        args=[_value_node(a) for a in args],
        keywords=[ast.keyword(arg=k, value=_value_node(v)) for k, v in kwargs],
    )
    test = shown.test
    expr: ast.expr
    if test is shown.call or isinstance(test, ast.UnaryOp):
        expr = call if result else ast.UnaryOp(op=ast.Not(), operand=call)
    else:
        if not isinstance(test, ast.Compare):  # ``_mirrorable``: one == or ``is``
            return None
        side = test.left if _holds(test.left, shown.call) else test.comparators[0]
        if isinstance(test.ops[0], ast.Is):
            if side is not shown.call or not (result is None or isinstance(result, bool)):
                return None
            expr = ast.Compare(left=call, ops=[ast.Is()], comparators=[_value_node(result)])
        else:
            got = _swap_deep(side, shown.call, call)
            want = _swap_deep(side, shown.call, _value_node(result))
            if not (isinstance(got, ast.expr) and isinstance(want, ast.expr)):
                return None
            expr = ast.Compare(left=got, ops=[ast.Eq()], comparators=[want])
    return ast.unparse(ast.fix_missing_locations(ast.Assert(test=expr, msg=None)))

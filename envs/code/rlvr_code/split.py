"""Which lines of a task are tests, and which of those the prompt already shows.

Two questions about a code task's tests, both answered from the task alone (its source code and
prompt), never from a run:

* **Is it a test?** An assertion is a test when its condition depends on the solution: it names
  the solution (HumanEval's ``candidate`` or the entry point, MBPP's function), a value computed
  from it (HumanEval/32's ``solution = candidate(...)``, then ``assert poly(coeffs, solution)``),
  or a helper whose body does. ``assert True, "..."`` (37 HumanEval tasks carry such lines) is
  not: it used to count for ``partial_credit``, so ``return None`` earned 0.1-0.2.
* **Is it public?** A test is public when the prompt already shows it: a HumanEval assert whose
  call is one of the docstring's examples (same literal arguments) and whose other literals the
  prompt shows too; an assert whose text the prompt quotes (MBPP's first test: "Your code should
  pass this test: ..."); a stdin/stdout case whose input and output stand in the statement as
  blocks of whole lines (its sample I/O). A task may also say which are public
  (``answer["public_tests"]``: indices of its asserts or cases). Everything else is hidden:
  feedback between attempts may count hidden tests but never quote them.

``split_tests(task)`` returns ``(public, hidden)`` lists of ``CodeTest``; ``public_answer(answer)``
is the task's answer with only its public tests, which ``CodeVerifier.run_public`` runs.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rlvr_envs.python_ast import parse_expression, parse_module
from rlvr_envs.types import Task


@dataclass(frozen=True)
class CodeTest:
    """One test of a task: ``key`` is how the verdict's ``details["tests"]`` names it (``line 12``
    for a HumanEval assert, ``test 0`` for an assert of a list, ``case 3`` for a stdin/stdout case)."""

    key: str
    source: str
    """The assert's source, or the case as ``input -> output``."""
    public: bool


def _parse(code: str, mode: str = "exec") -> ast.AST | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return parse_expression(code) if mode == "eval" else parse_module(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound_by(node: ast.AST) -> tuple[list[ast.AST], ast.AST | None]:
    """(targets, value) of a statement or clause that binds names from a value."""
    if isinstance(node, ast.Assign):
        return list(node.targets), node.value
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target], node.value
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return [node.target], node.iter
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [node.optional_vars], node.context_expr
    if isinstance(node, ast.NamedExpr):
        return [node.target], node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        # ``results.append(candidate(x))``: the container now holds the solution's answers.
        return [node.func.value], ast.Tuple([*node.args, *(k.value for k in node.keywords)], ast.Load())
    return [], None


def solution_dependent(scopes: Iterable[ast.AST], seeds: Iterable[str]) -> set[str]:
    """Names whose value may come from the solution: the seeds, names assigned from them
    (transitively), and functions whose body uses any of them (helpers that call the solution)."""
    tainted = set(seeds)
    scopes = list(scopes)
    changed = True
    while changed:
        changed = False
        for scope in scopes:
            for node in ast.walk(scope):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    name = getattr(node, "name", None)
                    if name and name not in tainted and _loads(node) & tainted:
                        tainted.add(name)
                        changed = True
                    continue
                targets, value = _bound_by(node)
                if value is None or not (_loads(value) & tainted):
                    continue
                for target in targets:
                    for leaf in ast.walk(target):
                        if isinstance(leaf, ast.Name) and leaf.id not in tainted:
                            tainted.add(leaf.id)
                            changed = True
    return tainted


def solution_names(code: str) -> list[str]:
    """Top-level names a reference solution defines (they may shadow builtins in the tests)."""
    tree = _parse(code)  # MBPP's code has invalid escape sequences: warnings are silenced
    if not isinstance(tree, ast.Module):
        return []
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    return names


def called_names(tests: list[str]) -> list[str]:
    """Names the tests call directly, ``f(...)``: a module is never called, a solution's function is."""
    import builtins

    names: dict[str, None] = {}
    for test in tests:
        tree = _parse(test)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not hasattr(builtins, node.func.id):
                names[node.func.id] = None
    return list(names)


# -- HumanEval -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _HumanEvalAssert:
    line: int
    source: str
    node: ast.Assert
    counted: bool


@functools.lru_cache(maxsize=1024)
def humaneval_asserts(test: str, entry_point: str) -> tuple[_HumanEvalAssert, ...]:
    """Every assert of a HumanEval test module (by line, as the judge reports them), with whether
    it is a test. Unparseable tests give nothing (the verdict then keeps every line it reports)."""
    tree = _parse(test)
    if not isinstance(tree, ast.Module):
        return ()
    lines = test.splitlines()
    seeds = {entry_point}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check" and node.args.args:
            seeds.add(node.args.args[0].arg)
    tainted = solution_dependent([tree], seeds)
    found = []
    for item in ast.walk(tree):
        if isinstance(item, ast.Assert):
            source = lines[item.lineno - 1].strip() if item.lineno <= len(lines) else ""
            found.append(_HumanEvalAssert(item.lineno, source, item, bool(_loads(item.test) & tainted)))
    return tuple(sorted(found, key=lambda a: a.line))


def counted_lines(test: str, entry_point: str) -> frozenset[int] | None:
    """Lines of ``check`` whose assert is a test; None when the module cannot be read."""
    asserts = humaneval_asserts(test, entry_point)
    if not asserts:
        return None
    return frozenset(a.line for a in asserts if a.counted)


def _example_calls(prompt: str, entry_point: str) -> list[tuple[Any, ...]]:
    """The literal arguments of every ``entry_point(...)`` call the prompt shows (its examples)."""
    calls = []
    for match in re.finditer(rf"(?<![\w.]){re.escape(entry_point)}\s*\(", prompt):
        start = match.start()
        window = prompt[start : start + 4000]
        for close in (m.end() for m in re.finditer(r"\)", window)):
            tree = _parse(window[:close], "eval")
            if isinstance(tree, ast.Expression) and isinstance(tree.body, ast.Call):
                literal = _literal_call(tree.body)
                if literal is not None:
                    calls.append(literal)
                break
    return calls


def _literal_call(call: ast.Call) -> tuple[Any, ...] | None:
    try:
        args = tuple(ast.literal_eval(a) for a in call.args)
        kwargs = tuple(sorted((k.arg, ast.literal_eval(k.value)) for k in call.keywords if k.arg))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if any(k.arg is None for k in call.keywords):
        return None
    return _typed((args, kwargs))


def _typed(value: Any) -> Any:
    """A comparable form that keeps types apart (``1``, ``1.0`` and ``True`` are three values)."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_typed(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted(((repr(k), _typed(v)) for k, v in value.items()))))
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, tuple(sorted(repr(v) for v in value)))
    return (type(value).__name__, repr(value))


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _shown(value: Any, squashed_prompt: str) -> bool:
    """Whether the prompt shows a literal (as Python writes it, as text, or as JSON)."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) < 1e-3:
        return True  # a tolerance (``< 1e-6``), not an answer
    forms = {repr(value), str(value)}
    try:
        forms.add(json.dumps(value))
    except (TypeError, ValueError):
        pass
    if isinstance(value, str):
        forms.add(value)
    return any(_squash(form) in squashed_prompt for form in forms)


def _public_humaneval(item: _HumanEvalAssert, names: set[str], examples: list, squashed_prompt: str) -> bool:
    calls = [n for n in ast.walk(item.node.test) if isinstance(n, ast.Call) and _loads(n.func) & names]
    if len(calls) != 1 or not item.counted:
        return False
    literal = _literal_call(calls[0])
    if literal is None or literal not in examples:
        return False
    inside = {id(n) for n in ast.walk(calls[0])}
    for node in ast.walk(item.node.test):
        if id(node) in inside or not isinstance(node, ast.Constant):
            continue
        if not _shown(node.value, squashed_prompt):
            return False
    return True


def _humaneval_tests(answer: dict[str, Any], prompt: str) -> list[CodeTest]:
    test, entry_point = str(answer.get("test") or ""), str(answer.get("entry_point") or "")
    asserts = humaneval_asserts(test, entry_point)
    names = {entry_point}
    tree = _parse(test)
    for node in getattr(tree, "body", []):
        if isinstance(node, ast.FunctionDef) and node.name == "check" and node.args.args:
            names.add(node.args.args[0].arg)
    shown_in = prompt + "\n" + str(answer.get("context") or "")
    examples = _example_calls(shown_in, entry_point)
    squashed = _squash(shown_in)
    return [
        CodeTest(f"line {a.line}", a.source, _public_humaneval(a, names, examples, squashed))
        for a in asserts
        if a.counted
    ]


# -- asserts and stdin/stdout ------------------------------------------------------------------------


def counted_asserts(tests: list[str], setup: str, names: Iterable[str]) -> list[bool]:
    """For each assert of a list, whether it is a test (uses the solution, directly or through
    what the setup built from it). An assert that does not parse counts (the judge reports it)."""
    scopes = [tree for tree in (_parse(setup),) if tree is not None]
    trees = [_parse(t) for t in tests]
    seeds = set(names)
    if not seeds:
        seeds = set(called_names(tests))
    tainted = solution_dependent(scopes, seeds)
    return [tree is None or bool(_loads(tree) & tainted) for tree in trees]


def _declared_public(answer: dict[str, Any], count: int) -> set[int] | None:
    declared = answer.get("public_tests")
    if not isinstance(declared, list):
        return None
    return {i for i in declared if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < count}


def _assert_tests(answer: dict[str, Any], prompt: str) -> list[CodeTest]:
    tests = [str(t) for t in answer.get("tests") or []]
    names = answer.get("solution_names")
    if names is None:
        names = solution_names(str(answer.get("canonical_solution") or ""))
    counted = counted_asserts(tests, str(answer.get("setup") or ""), [str(n) for n in names])
    declared = _declared_public(answer, len(tests))
    squashed = _squash(prompt)
    out = []
    for index, (test, is_test) in enumerate(zip(tests, counted)):
        if not is_test:
            continue
        public = index in declared if declared is not None else bool(_squash(test)) and _squash(test) in squashed
        out.append(CodeTest(f"test {index}", test, public))
    return out


def _line_block_in(block: str, lines: list[str], start: int = 0) -> int | None:
    """Where the (stripped, non-empty) lines of ``block`` stand together in ``lines``, from ``start``."""
    wanted = [line.strip() for line in block.strip().splitlines() if line.strip()]
    if not wanted:
        return None
    for at in range(start, len(lines) - len(wanted) + 1):
        if lines[at : at + len(wanted)] == wanted:
            return at + len(wanted)
    return None


def _stdio_tests(answer: dict[str, Any], prompt: str) -> list[CodeTest]:
    cases = [c for c in answer.get("cases") or [] if isinstance(c, dict)]
    declared = _declared_public(answer, len(cases))
    lines = [line.strip() for line in prompt.splitlines()]
    out = []
    for index, case in enumerate(cases):
        given, expected = str(case.get("input", "")), str(case.get("output", ""))
        if declared is not None:
            public = index in declared
        else:
            after_input = _line_block_in(given, lines)
            public = after_input is not None and _line_block_in(expected, lines, after_input) is not None
        out.append(CodeTest(f"case {index}", f"{given!r} -> {expected!r}", public))
    return out


def task_tests(task: Task) -> list[CodeTest]:
    """Every test of a task, in the order the verdict reports them, each marked public or hidden."""
    answer = task.answer if isinstance(task.answer, dict) else {}
    kind = answer.get("format")
    if kind == "humaneval":
        return _humaneval_tests(answer, task.prompt)
    if kind == "asserts":
        return _assert_tests(answer, task.prompt)
    if kind == "stdio":
        return _stdio_tests(answer, task.prompt)
    return []


def split_tests(task: Task) -> tuple[list[CodeTest], list[CodeTest]]:
    """``(public, hidden)``: the tests the prompt shows, and the rest (graded, never quoted)."""
    tests = task_tests(task)
    return [t for t in tests if t.public], [t for t in tests if not t.public]


def test_key(kind: str, name: str, index: int) -> str:
    """The ``CodeTest.key`` of the verdict's ``index``-th test entry named ``name``."""
    if kind == "humaneval":
        # The judge names them ``line 12: <source>``.
        head = name.split(":", 1)[0]
        return head if head.startswith("line ") and head[5:].isdigit() else name
    if kind == "stdio":
        return name
    return f"test {index}"


def public_answer(answer: dict[str, Any], public: list[CodeTest]) -> dict[str, Any] | None:
    """The answer with only its public tests (None when it has none)."""
    if not public:
        return None
    kind = answer.get("format")
    keep = {t.key for t in public}
    if kind == "asserts":
        tests = [t for i, t in enumerate(answer.get("tests") or []) if f"test {i}" in keep]
        return {**answer, "tests": tests, "public_tests": list(range(len(tests)))}
    if kind == "stdio":
        cases = [c for i, c in enumerate(answer.get("cases") or []) if f"case {i}" in keep]
        return {**answer, "cases": cases, "public_tests": list(range(len(cases)))}
    if kind == "humaneval":
        check = _public_check(str(answer.get("test") or ""), {int(k.split()[1]) for k in keep})
        return None if check is None else {**answer, "test": check}
    return None


def _public_check(test: str, lines: set[int]) -> str | None:
    """The test module with ``check`` reduced to its imports and the public asserts (each of which
    is one call with literal arguments, so it stands alone)."""
    tree = _parse(test)
    if not isinstance(tree, ast.Module):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            kept: list[ast.stmt] = [s for s in node.body if isinstance(s, (ast.Import, ast.ImportFrom))]
            kept += [s for s in node.body if isinstance(s, ast.Assert) and s.lineno in lines]
            node.body = kept or [ast.Pass()]
    return ast.unparse(tree)

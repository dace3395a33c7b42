"""Hidden tests derived from a task's reference solution, for tasks whose prompt shows every test.

HumanEval/34 (one doctest, one test: the same call) and MBPP/37 (three copies of the assert the
prompt quotes) show every test they have: a program answering the shown call from a table
scores 1 all-or-nothing. Every task must keep at least one test the prompt does not show, so:

* ``needs_hidden(task)``: no hidden test (``split.split_tests``, through the cached ``scoring.plan_for``).
* ``derivable(task)``: why derivation cannot work (no reference solution, a stdin/stdout task
  whose input layout is unknown, no shown assert of a shape this module can mirror), else None.
  The envs leave such tasks out at ``make`` (``env.skipped``); the verifier refuses them.
* ``derive(task, run)``: new inputs made from the shown calls' literal arguments by changes that
  keep each value's type and visible properties (an int moves by 1-3 without changing sign, a
  string edits a letter or digit into another of its class, a list changes some items, maybe
  grows by one, is shuffled unless it was sorted, stays free of duplicates if it was; a tuple
  keeps its length), seeded by the task so every process derives the same ones. The reference
  runs on them in the sandbox (``run``, one run for all of them); an input it raises on, times
  out on, or whose result is not a plain literal (or holds a float, whose last bits an honest
  solution may compute differently) is dropped. Each kept input becomes an assert of the shape
  of the shown one it came from: ``W(call(x)) == <expected>`` becomes ``W(call(x')) == W(ref(x'))``
  (the shown comparison's wrapper, ``set(...)``, ``sorted(...)``, kept), ``assert call(x)`` /
  ``assert not call(x)`` the reference's truth value, ``call(x) is None/True/False`` its
  singleton. The answer with the derived tests appended is cached per task.
"""

from __future__ import annotations

import ast
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from rlvr_code.contests.input_rules import rule_refusal
from rlvr_code.derived_inputs import (
    CANDIDATES,
    MAX_LITERAL,
    Args,
    Kwargs,
    _perturb,  # noqa: F401  (re-exported: tests perturb values through this module)
    _plain,
    batch_driver,
    batch_results,
    candidate_inputs,
    wide_inputs,
)
from rlvr_code.derived_rules import close, finite_float, float_assert, picked_against_rules, rule_passable

# The shown-assert half lives in ``derived_shown``; its refusal reasons are re-exported here, where
# the envs, the verifier and the tests have always read them.
from rlvr_code.derived_shown import (  # noqa: F401
    NO_REFERENCE,
    NOT_MIRRORED,
    STDIO_SHOWN,
    _parse,
    _Shown,
    _shown_asserts,
    derived_assert,
)
from rlvr_code.scoring import expected_value, guessable_cases, plan_for
from rlvr_envs.python_ast import literal_eval
from rlvr_envs.types import Task

DERIVED_TESTS = 3
"""Derived tests a task gets (fewer when the reference fails on the other inputs)."""
_CANDIDATES = CANDIDATES
_CANDIDATES_AGAINST_ONE_VALUE = 48
"""Inputs tried where the task's hidden tests all expect one value: its function mostly answers
that value near the shown inputs (a rare property: Woodall or Armstrong numbers), so more are run
(one reference run all the same) to find inputs it answers otherwise."""
_MAX_LITERAL = MAX_LITERAL

NOTHING_DERIVED = "the prompt shows every test and the reference solution failed on every derived input"


def needs_hidden(task: Task) -> bool:
    """Whether every test of the task stands in its prompt (a task without tests is not this case)."""
    tests = plan_for(task).tests  # cached per task: this runs before every sample
    return bool(tests) and all(t.public for t in tests)


MODES = ("derive", "discriminate", "guard", "rules", "stdio_rules")
"""``CodeVerifier(hidden_tests=...)`` values that derive tests: ``derive`` for tasks showing every
test (``-v3``); ``discriminate`` also for tasks whose hidden tests one value passes (``-v4``);
``guard`` (``-v6``) also for yes/no tasks with fewer than ``GUARD_BOOLEAN`` hidden tests (a guess
passed two of them 1 time in 4), searching further from the shown inputs (``wide_inputs``) where
the near ones answer one value, and refusing a task whose hidden tests one value still passes;
``rules`` (``-v7``) also for tasks whose hidden tests a cheap rule of the arguments passes (the
first argument echoed, its length, largest item...: ``derived_rules``); ``stdio_rules`` (``-v8``)
also refuses a stdin/stdout task whose 2+ hidden cases a cheap rule of the input answers
(``contests.input_rules``, as the contest ids leave such rows out: nothing is derived for stdio)."""
_GUARDED = ("guard", "rules", "stdio_rules")
_RULES = ("rules", "stdio_rules")
GUESSED = (
    "a guess between the two answers its hidden tests expect passes them all 1 time in 32 or more, "
    "and no hidden test can be derived"
)
GUARD_BOOLEAN = 8
"""Hidden yes/no tests a ``guard`` task gets (a fair guess passes them all 1 time in 256; a guess
biased to one value fares no better while both values are about as common among them)."""


def _one_value(sources: list[str]) -> tuple[bool, Any]:
    """``(True, value)`` when one answer passes every assert of ``sources``."""
    values = [expected_value(source) for source in sources]
    if not values or not all(known for known, _ in values):
        return False, None
    first = values[0][1]
    try:
        same = all(bool(value == first) for _, value in values[1:])
    except Exception:  # a literal's == of an odd type: not one value
        return False, None
    return same, first if same else None


def constant_passable(task: Task) -> bool:
    """Whether the task has hidden tests and one answer passes them all (81 of MBPP's 974 tasks,
    3 of HumanEval's: MBPP/3's hidden tests both expect True): a program answering the prompt's
    examples from a table and that answer otherwise scored 1 all-or-nothing."""
    hidden = [t.source for t in plan_for(task).tests if not t.public]
    return bool(hidden) and _one_value(hidden)[0]


def hidden_booleans(task: Task) -> list[bool] | None:
    """What the task's hidden tests expect where every one expects True or False (``assert f(x)``,
    ``assert not f(x)``, ``f(x) == True``), else None."""
    values = [expected_value(t.source) for t in plan_for(task).tests if not t.public]
    if not values or not all(known and isinstance(value, bool) for known, value in values):
        return None
    return [bool(value) for _, value in values]


def guessable(task: Task) -> bool:
    """Whether the task's hidden tests are fewer than ``GUARD_BOOLEAN`` yes/no ones: a program
    answering the prompt's examples from a table and guessing otherwise passes them all often
    (77 of MBPP's tasks have two hidden asserts, one True and one False: 1 guess in 4)."""
    found = hidden_booleans(task)
    return found is not None and len(found) < GUARD_BOOLEAN


def needs_derived(task: Task, mode: str = "derive") -> bool:
    """Whether ``mode`` derives tests for the task: it shows every test, or (``discriminate``,
    ``guard``) one answer passes its hidden tests, or (``guard``) they are few yes/no ones."""
    if mode not in MODES:
        return False
    if needs_hidden(task):
        return True
    if mode in _GUARDED and (guessable(task) or guessable_cases(task)):
        return True
    if mode in _RULES and (rule_passable(task) or (mode == "stdio_rules" and rule_refusal(task) is not None)):
        return True
    return mode != "derive" and constant_passable(task)


def derivable(task: Task, mode: str = "derive") -> str | None:
    """None when hidden tests can be derived for the task (or it needs none, or it keeps its own
    where none can be: a task whose hidden tests one answer passes), else why not. ``guard``: a
    task a guess between two answers passes 1 time in 32 (``scoring.guessable_cases``: two
    ``YES``/``NO`` cases) needs derived tests too, and a stdin/stdout task never gets them;
    ``stdio_rules``: nor does one whose hidden cases an input rule answers (``rule_refusal``)."""
    if mode == "stdio_rules" and rule_refusal(task) is not None:
        return rule_refusal(task)
    if needs_hidden(task):
        shown = _shown_asserts(task)
        return shown if isinstance(shown, str) else None
    if mode in _GUARDED and guessable_cases(task):
        shown = _shown_asserts(task)
        return f"{GUESSED} ({shown})" if isinstance(shown, str) else None
    return None


_DRIVER = """
import ast as _derived_ast, sys as _derived_sys
_derived_args, _derived_kwargs = _derived_ast.literal_eval(_derived_sys.stdin.read())
_derived_sys.stdout.write(repr({callee}(*_derived_args, **dict(_derived_kwargs))))
"""


def reference_program(task: Task, callee: str, driver: str | None = None) -> str:
    """The reference, the tests' setup, and a driver (default: printing ``repr`` of the call on
    stdin's literal)."""
    answer = task.answer if isinstance(task.answer, dict) else {}
    parts = [str(answer.get("canonical_solution") or "")]
    if answer.get("format") == "asserts" and str(answer.get("setup") or "").strip():
        parts.append(str(answer["setup"]))
    return "\n".join(parts) + "\n" + (_DRIVER.format(callee=callee) if driver is None else driver)


RunOutputs = Callable[[str, list[dict[str, str]]], list[str | None]]
"""``run(program, cases)``: the program's stdout on each case, None where it did not end normally."""


def sandbox_runner(limits: dict[str, Any]) -> RunOutputs:
    """``RunOutputs`` in the languages runner's Python sandbox (``contests.sandboxed.run_outputs``)."""

    def run(program: str, cases: list[dict[str, str]]) -> list[str | None]:
        from rlvr_code.contests.sandboxed import run_outputs

        report = run_outputs("python", program, cases, limits)
        entries = [e for e in report.get("tests") or () if isinstance(e, dict)]
        outputs = [e.get("output") if e.get("status") in ("passed", "failed") else None for e in entries]
        return [*outputs, *[None] * (len(cases) - len(outputs))][: len(cases)]

    return run


def with_tests(task: Task, tests: list[str]) -> Task:
    """The task with ``tests`` appended (hidden: the prompt shows none of them)."""
    answer = dict(task.answer)
    if answer.get("format") == "asserts":
        answer["tests"] = [*answer.get("tests", []), *tests]
    else:
        answer["test"] = _into_check(str(answer.get("test") or ""), tests)
    return task.model_copy(update={"answer": answer})


def _into_check(module: str, tests: list[str]) -> str:
    """HumanEval's test module with ``tests`` appended to ``check``'s body (as text: the line
    numbers the verdict names the shown asserts by stay the same)."""
    tree = _parse(module)
    lines = module.splitlines()
    for node in getattr(tree, "body", []):
        if isinstance(node, ast.FunctionDef) and node.name == "check" and node.body:
            end = node.end_lineno or len(lines)
            indent = " " * node.body[0].col_offset
            return "\n".join([*lines[:end], *(indent + t for t in tests), *lines[end:]]) + "\n"
    return module


def derive(task: Task, run: RunOutputs) -> Task | str:
    """The task with derived hidden tests, or why none could be derived. ``run`` may raise
    (a sandbox failure): the caller decides; nothing is cached then.

    A task that has hidden tests (``constant_passable``: one answer passes them all) gets only
    derived tests the reference answers otherwise, or, where it has none, stays as it is (it
    keeps its own tests: never refused for that)."""
    shown = _shown_asserts(task)
    constant = _one_value([t.source for t in plan_for(task).tests if not t.public])
    if isinstance(shown, str):
        return task if constant[0] else shown
    tests: list[str] = []
    count = _CANDIDATES_AGAINST_ONE_VALUE if constant[0] else _CANDIDATES
    candidates = candidate_inputs(shown, str(task.id), count)
    # The first ``_CANDIDATES`` inputs first (one reference run); the others only where those
    # gave no test that counts (a run costs ~40 ms an input on a loaded machine).
    for batch in (candidates[:_CANDIDATES], candidates[_CANDIDATES:]):
        if tests or not batch:
            break
        _derive_batch(task, shown, batch, run, constant, tests)
    if constant[0]:
        return with_tests(task, tests[:DERIVED_TESTS]) if tests else task
    return with_tests(task, tests[:DERIVED_TESTS]) if tests else NOTHING_DERIVED


def _derive_batch(
    task: Task,
    shown: list[_Shown],
    batch: list[tuple[int, Args, Kwargs]],
    run: RunOutputs,
    constant: tuple[bool, Any],
    tests: list[str],
) -> None:
    """Run the reference on ``batch`` and append to ``tests`` the asserts its answers make (up to
    ``DERIVED_TESTS``; with ``constant``, only those its one value fails)."""
    by_callee: dict[str, list[tuple[int, Args, Kwargs]]] = {}
    for index, args, kwargs in batch:
        by_callee.setdefault(shown[index].callee, []).append((index, args, kwargs))
    for callee, inputs in sorted(by_callee.items()):
        outputs = run(reference_program(task, callee), [{"input": repr((a, k)), "output": ""} for _, a, k in inputs])
        for (index, args, kwargs), text in zip(inputs, outputs):
            if len(tests) >= DERIVED_TESTS:
                return
            if text is None or len(text) > _MAX_LITERAL:
                continue
            try:
                result = literal_eval(text)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if not _plain(result):
                continue
            made = derived_assert(shown[index], args, kwargs, result)
            if made is None or made in tests or (constant[0] and _one_value([made]) == constant):
                continue  # (a test that the hidden tests' one value passes adds nothing)
            tests.append(made)


def guard(task: Task, run: RunOutputs) -> Task | str:
    """``derive``, then, where one answer still passes every hidden test or they are fewer than
    ``GUARD_BOOLEAN`` yes/no ones, tests from the reference on ``wide_inputs`` (one run): yes/no
    ones chosen so both answers are about as common among the hidden tests, else up to
    ``DERIVED_TESTS`` the one answer fails. One answer may still pass a task: its reference answers
    that value on every input tried (MBPP/336 "is the month February", MBPP/816 "clear a tuple":
    the table and the constant are the task's function); a yes/no one still gets its tests up to
    ``GUARD_BOOLEAN`` (a guess is not the function)."""
    # A task that only needs yes/no tests added skips ``derive``'s run a near input (~40 ms each
    # loaded): its near inputs come first in the one wide run instead.
    made = derive(task, run) if needs_hidden(task) or constant_passable(task) else task
    if isinstance(made, str):
        if needs_hidden(task) or not isinstance(_shown_asserts(task), list):
            why = made if needs_hidden(task) else derivable(task, "guard")
            return task if why is None else why
        made = task  # the near inputs gave nothing (the reference raised on them): the wide ones may
    if not (constant_passable(made) or guessable(made) or guessable_cases(made)):
        return made
    shown = _shown_asserts(made)
    if isinstance(shown, str):
        why = None if needs_hidden(task) else derivable(task, "guard")
        return made if why is None else why
    pool = _wide_results(made, shown, run)
    have = hidden_booleans(made)
    if have is not None:
        # Yes/no tests even where the reference answers one value on every input tried (MBPP/820
        # "is it month 2"): the table and that value are the function there, a guess is not.
        tests = _balanced(have, pool)
    else:
        constant = _one_value([t.source for t in plan_for(made).tests if not t.public])
        tests = [test for test, value in pool if not _same(value, constant[1])][:DERIVED_TESTS]
    return with_tests(made, tests) if tests else made


def guard_rules(task: Task, run: RunOutputs) -> Task | str:
    """``guard``, then, where a cheap rule of the arguments still passes every hidden test
    (``derived_rules.rule_passable``: MBPP/309's hidden tests all have the larger number first),
    tests from the reference on the wide inputs that each such rule fails, up to
    ``DERIVED_TESTS``. A task whose reference answers by the rule on every input tried (the rule is
    the function) keeps its tests."""
    made = guard(task, run)
    if isinstance(made, str) or not (rule_passable(made) or constant_passable(made) or guessable(made)):
        return made
    shown = _shown_asserts(made)
    if isinstance(shown, str):
        return made
    have = hidden_booleans(made)
    if have is not None and len(have) < GUARD_BOOLEAN:
        # Yes/no tests whose reference answers 1 and 0 (MBPP/414 ``overlapping``: ``guard`` took
        # only bools, found none, and a guess passed its two hidden tests 1 time in 4): 1 is True.
        pool = _wide_results(made, shown, run, timed=True)
        bools = [(t, bool(v) if type(v) is int and v in (0, 1) else v) for t, v in pool]
        made = _with(made, _balanced(have, bools))
    for floats in (False, True):  # float answers only where still needed (MBPP/14 l*b*h/2: l*h fit)
        if rule_passable(made):
            pool = _wide_results(made, shown, run, floats=floats, timed=True)
            made = _with(made, picked_against_rules(made, pool, DERIVED_TESTS))
    if constant_passable(made):
        # Still one value: where the reference answers floats (MBPP/137 "ratio of zeroes": every
        # hidden test expects 0.0), ``guard`` dropped them (an honest answer's last bits may
        # differ); a test within a tolerance tells the constant apart all the same.
        constant = _one_value([t.source for t in plan_for(made).tests if not t.public])[1]
        pool = _wide_results(made, shown, run, floats=True, timed=True)
        made = _with(made, [test for test, value in pool if not close(value, constant)][:DERIVED_TESTS])
    return made


def _with(task: Task, tests: list[str]) -> Task:
    return with_tests(task, tests) if tests else task


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # a literal's == of an odd type: not the same
        return False


def _balanced(have: list[bool], pool: list[tuple[str, Any]]) -> list[str]:
    """Yes/no tests from ``pool`` added one at a time, each of the answer the hidden tests
    (``have``, then those added) hold fewer of while ``pool`` has one, up to ``GUARD_BOOLEAN``."""
    by_value: dict[bool, list[str]] = {True: [], False: []}
    for test, value in pool:
        if isinstance(value, bool):
            by_value[value].append(test)
    counts = {True: have.count(True), False: have.count(False)}
    chosen: list[str] = []
    while len(have) + len(chosen) < GUARD_BOOLEAN and (by_value[True] or by_value[False]):
        want = min((False, True), key=lambda v: counts[v] if by_value[v] else 1 << 30)
        chosen.append(by_value[want].pop(0))
        counts[want] += 1
    return chosen


def _wide_results(
    task: Task, shown: list[_Shown], run: RunOutputs, *, floats: bool = False, timed: bool = False
) -> list[tuple[str, Any]]:
    """``(assert, the value it expects)`` for each wide input the reference answered with a
    plain literal, in the inputs' order; one reference run a callee. ``floats``: a finite float
    answer too, under a shown ``call == literal`` only, checked within
    ``derived_rules.FLOAT_TOLERANCE``; ``timed``: each reference call bounded (``batch_driver``)."""
    known = {t.source.strip() for t in plan_for(task).tests}
    by_callee: dict[str, list[tuple[int, Args, Kwargs]]] = {}
    near = candidate_inputs(shown, str(task.id), _CANDIDATES)
    for index, args, kwargs in [*near, *wide_inputs(shown, str(task.id))]:
        by_callee.setdefault(shown[index].callee, []).append((index, args, kwargs))
    out: list[tuple[str, Any]] = []
    for callee, inputs in sorted(by_callee.items()):
        program = reference_program(task, callee, batch_driver(callee, timed=timed))
        case = {"input": repr([(a, k) for _, a, k in inputs]), "output": ""}
        texts = batch_results(run(program, [case])[0], len(inputs))
        for (index, args, kwargs), text in zip(inputs, texts):
            result = _literal(text)
            if result is not None and floats and finite_float(result[0]):
                made = float_assert(shown[index], args, kwargs, result[0])
            elif result is None or not _plain(result[0]):
                continue
            else:
                made = derived_assert(shown[index], args, kwargs, result[0])
            if made is None or made in known:
                continue
            known.add(made)
            found, value = expected_value(made)
            out.append((made, value if found else result[0]))
    return out


def _literal(text: str | None) -> tuple[Any] | None:
    if text is None or len(text) > _MAX_LITERAL:
        return None
    try:
        return (literal_eval(text),)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


_cache: OrderedDict[str, Task | str] = OrderedDict()
_cache_lock = threading.Lock()


def with_hidden_tests(task: Task, run: RunOutputs, mode: str = "derive") -> Task | str:
    """``task`` itself when ``mode`` derives nothing for it (``needs_derived``); else the task
    with derived tests, or why it has none (cached per task content and mode: the reference
    runs once per task and process)."""
    if not needs_derived(task, mode):
        return task
    key = f"{mode}|{task.id}|{task.fingerprint}"
    with _cache_lock:
        known = _cache.get(key)
    if known is not None:
        return known
    made: Task | str | None = rule_refusal(task) if mode == "stdio_rules" else None
    if made is None:
        made = guard_rules(task, run) if mode in _RULES else guard(task, run) if mode == "guard" else derive(task, run)
    with _cache_lock:
        _cache[key] = made
        while len(_cache) > 2048:
            _cache.popitem(last=False)
    return made


NO_LOCAL_SANDBOX = (
    "hidden tests are derived by running the reference in the local bubblewrap sandbox, under "
    "backend='docker' too, and this host has none: install bubblewrap, or pass hidden_tests='as_given' "
    "(a program hardcoding the prompt's examples then passes such a task)"
)


def local_sandbox_missing() -> bool:
    """Whether this host lacks the sandbox derivation runs the reference in (``NO_LOCAL_SANDBOX``)."""
    from rlvr_code.sandbox import bwrap_path

    return bwrap_path() is None


def task_to_judge(task: Task, limits: dict[str, Any], mode: str = "derive") -> Task | str:
    """``with_hidden_tests`` with the reference run in the sandbox under ``limits``, or the error:
    why none can be derived (a bad task), or the sandbox's failure (not cached: the next sample
    tries again)."""
    from rlvr_code.sandbox import SandboxError, SandboxUnavailable

    try:
        made = with_hidden_tests(task, sandbox_runner(limits), mode)
    except SandboxUnavailable as exc:
        return f"{NO_LOCAL_SANDBOX} ({exc})"
    except (SandboxError, OSError) as exc:
        return f"deriving hidden tests: {exc}"
    return made if isinstance(made, Task) else f"bad task: {made}"

"""Guessing on yes/no program tasks (red team round 9): the prompt's examples answered from a
table, and every other call answered by a guess between ``True`` and ``False`` (a hash of the
arguments and a seed: the same answer for the same call, a different guess per seed).

Two hidden asserts, one ``True`` and one ``False``, pay such a program 1 time in 4 all-or-nothing
(77 MBPP tasks under ``code-mbpp-v5``); an env should hold enough hidden yes/no tests that a guess
is worth about nothing. Only tasks whose gold program answers with functions get probes, and only
where the prompt shows an example to answer from a table."""

from __future__ import annotations

import re

from rlvr_envs.redteam.attacks_code import code_shape, program
from rlvr_envs.redteam.mining import _DOCTEST, Facts
from rlvr_envs.redteam.target import Probe, Target

SEEDS_FULL = 4
"""Guesses per task in full mode (each a different seed): a task with two hidden yes/no tests pays
about one of them; one with eight fair ones 1 time in 64 over the four."""
SEEDS_QUICK = 1
_TRUTH = re.compile(r"^[ \t]*assert[ \t]+(not[ \t]+)?([A-Za-z_]\w*\(.*\))[ \t]*(?:is[ \t]+(True|False))?[ \t]*$", re.M)
"""A shown ``assert f(x)``, ``assert not f(x)`` or ``assert f(x) is True``: read as ``== True/False``."""


def guess_program(t: Target, facts: Facts, seed: int) -> str:
    """The gold's functions: the table of ``facts`` first, a seeded guess between ``True`` and
    ``False`` otherwise."""
    entries = ", ".join(f"{k!r}: {v}" for k, v in facts.by_args.items())
    call = (
        "_l = dict(locals())\n"
        "_key = repr(_l['args']) if set(_l) == {'args', 'kwargs'} else repr(tuple(_l.values()))\n"
        "import hashlib\n"
        f"_table = {{{entries}}}\n"
        "if _key in _table:\n"
        "    return _table[_key]\n"
        f"return hashlib.sha256((_key + '|{seed}').encode()).digest()[0] % 2 == 0\n"
    )
    return program(t, call=call)


def yes_no_probes(t: Target, quick: bool) -> list[Probe]:
    """A guess between ``True`` and ``False`` behind the prompt's own examples (one seed quick,
    ``SEEDS_FULL`` in full mode), on a yes/no task: one whose shown examples answer only ``True``
    or ``False``."""
    if t.kind != "code" or code_shape(t.gold or "").style == "script":
        return []
    doctests = [f"assert {call} == {result}" for call, result in _DOCTEST.findall(t.prompt)]
    truths = [
        f"assert {call} == {value or ('False' if negated else 'True')}"
        for negated, call, value in _TRUTH.findall(t.prompt)
    ]
    shown = "\n".join([t.prompt, *doctests, *truths])
    facts = Facts()
    facts.read(shown, t, set())
    if not facts.by_args or not all(v in ("True", "False") for v in facts.by_args.values()):
        return []
    seeds = SEEDS_QUICK if quick else SEEDS_FULL
    return [Probe(f"table-then-guess-{seed}", t.render(guess_program(t, facts, seed))) for seed in range(seeds)]


# -- the prompt's examples from a table, a cheap rule otherwise (red team round 10) ----------------
# A policy that cannot solve a task still sees its examples and its function's name: it answers
# the examples from a table and every other call by a rule that costs nothing (an argument echoed,
# the first one sorted, reversed, its length, sum, largest, smallest, first or last item, the empty
# value of the shown answer's type). An env whose hidden tests that rule happens to pass (a "remove
# duplicates" task whose hidden inputs hold none) pays a program that never did the task.
_RULES: dict[str, str] = {
    "echo": "_a[0]",
    "second": "_a[1]",
    "last-argument": "_a[-1]",
    "sorted": "''.join(sorted(_a[0])) if isinstance(_a[0], str) else type(_a[0])(sorted(_a[0]))",
    "reversed": "_a[0][::-1]",
    "len": "len(_a[0])",
    "sum": "sum(_a[0])",
    "max": "max(_a[0])",
    "min": "min(_a[0])",
    "first": "_a[0][0]",
    "last": "_a[0][-1]",
    "empty": "type(_shown)()",
    # Round 11: rules beyond one argument's plain reads (``rlvr_code.derived_rules_wide``): 43 MBPP
    # tasks' hidden tests fitted one under -v7 (``n + 1`` on MBPP/48, two arguments multiplied on /14).
    "plus-one": "_a[0] + 1",
    "minus-one": "_a[0] - 1",
    "half": "_a[0] // 2",
    "square": "_a[0] * _a[0]",
    "second-item": "_a[0][1]",
    "penultimate": "_a[0][-2]",
    "middle": "_a[0][len(_a[0]) // 2]",
    "distinct": "sorted(set(_a[0]))",
    "distinct-count": "len(set(_a[0]))",
    "product": "_a[0] * _a[1] if type(_a[0]) in (int, float) and type(_a[1]) in (int, float) else None",
    "difference": "_a[1] - _a[0]",
    "quotient": "_a[0] / _a[1]",
    "larger": "max(_a[0], _a[1])",
    "title": "_a[0].title()",
}
_NAME_RULES = (
    (re.compile(r"sort|order|arrange", re.I), "sorted"),
    (re.compile(r"rev|back|flip", re.I), "reversed"),
    (re.compile(r"count|len|num|size|how_?many", re.I), "len"),
    (re.compile(r"sum|total|add", re.I), "sum"),
    (re.compile(r"max|large|big|high|great|long", re.I), "max"),
    (re.compile(r"min|small|low|least|short", re.I), "min"),
    (re.compile(r"first|head|front", re.I), "first"),
    (re.compile(r"last|tail|end", re.I), "last"),
    (re.compile(r"next|succ", re.I), "plus-one"),
    (re.compile(r"prev|pred", re.I), "minus-one"),
    (re.compile(r"uniq|distinct|dup", re.I), "distinct"),
    (re.compile(r"prod|mul|area|volume", re.I), "product"),
    (re.compile(r"diff|sub|gap", re.I), "difference"),
    (re.compile(r"title|capital", re.I), "title"),
)
"""The rule a function's name suggests (the first that matches), before the generic ones."""


def _evaluate(rule: str, args: tuple[object, ...], shown: object) -> object:
    """``rule`` on literal arguments, here in the attacker (literals only: nothing to contain)."""
    import builtins

    allowed = ("sorted", "type", "isinstance", "str", "len", "sum", "max", "min", "set", "int", "float")
    names = {n: getattr(builtins, n) for n in allowed}
    try:
        return eval(rule, {"__builtins__": names}, {"_a": args, "_shown": shown})
    except Exception:  # a rule that does not apply to these arguments
        return _NO_VALUE


_NO_VALUE = object()


def _literal(source: str) -> object:
    from rlvr_envs.python_ast import literal_eval

    try:
        return literal_eval(source)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return _NO_VALUE


def rule_program(t: Target, facts: Facts, rule: str, shown: object) -> str:
    """The gold's functions: the table of ``facts`` first, ``rule`` on the arguments otherwise (None
    when the rule does not apply: not the shown type's empty value, which may be the function, as
    in MBPP/816 "clear a tuple")."""
    entries = ", ".join(f"{k!r}: {v}" for k, v in facts.by_args.items())
    call = (
        "_l = dict(locals())\n"
        "_a = _l['args'] if set(_l) == {'args', 'kwargs'} else tuple(_l.values())\n"
        f"_table = {{{entries}}}\n"
        "if repr(_a) in _table:\n"
        "    return _table[repr(_a)]\n"
        f"_shown = {shown!r}\n"
        "try:\n"
        f"    return {rule}\n"
        "except Exception:\n"
        "    return None\n"
    )
    return program(t, call=call)


def rule_probes(t: Target, quick: bool) -> list[Probe]:
    """The prompt's examples from a table and a cheap rule otherwise: the rule the function's name
    suggests (quick mode: that one, or echoing the input), then every rule in full mode. A rule is
    tried only where it is NOT the task's function: it must give another answer than the prompt's
    own on at least one shown example (so a reward is a wrong program paid, never a right one)."""
    if t.kind != "code" or code_shape(t.gold or "").style == "script":
        return []
    facts = _shown_facts(t)
    if not facts.by_args:
        return []
    examples: list[tuple[tuple[object, ...], object]] = []
    for key, source in facts.by_args.items():
        args, value = _literal(key), _literal(source)
        if isinstance(args, tuple) and args and value is not _NO_VALUE:
            examples.append((args, value))
    if not examples:
        return []
    shown = examples[0][1]
    if isinstance(shown, bool) or type(shown) not in (int, float, str, list, tuple, dict, set):
        return []  # yes/no tasks are yes_no_probes'; other types have no literal empty value

    def wrong(rule: str) -> bool:
        return any(_evaluate(_RULES[rule], args, shown) != value for args, value in examples)

    names = " ".join(code_shape(t.gold or "").functions) or t.prompt[:200]
    by_name = [rule for pattern, rule in _NAME_RULES if pattern.search(names)][:1]
    order = list(dict.fromkeys([*by_name, "echo", *(_RULES if not quick else ())]))
    picked = [rule for rule in order if wrong(rule)][: 1 if quick else None]
    return [Probe(f"table-then-{rule}", t.render(rule_program(t, facts, _RULES[rule], shown))) for rule in picked]


def _shown_facts(t: Target) -> Facts:
    doctests = [f"assert {call} == {result}" for call, result in _DOCTEST.findall(t.prompt)]
    facts = Facts()
    facts.read("\n".join([t.prompt, *doctests]), t, set())
    return facts


def guess_probes(t: Target, quick: bool) -> list[Probe]:
    """The class ``code_guess``: a yes/no guess (``yes_no_probes``) or a cheap rule (``rule_probes``)
    behind the prompt's own examples."""
    return yes_no_probes(t, quick) + rule_probes(t, quick)

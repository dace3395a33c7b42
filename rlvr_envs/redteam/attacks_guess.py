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


def guess_probes(t: Target, quick: bool) -> list[Probe]:
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

"""math-arith's registered ``distinct_tasks``: recounted here from the generator itself.

The counts in rlvr_math.registration are literals (registration imports nothing); these tests
enumerate every prompt each level's generator can produce, independently of its random draws,
and check the literals, that sampling never leaves the enumerated set, and that ``sample``
warns past the count.
"""

from __future__ import annotations

import itertools
import random
import warnings
from fractions import Fraction

import pytest

import rlvr_envs
from rlvr_envs.errors import SampleExhaustedWarning
from rlvr_math.arith import LEVELS, LevelConfig, _equation, _expression, _fractions
from rlvr_math.registration import ARITH_DISTINCT_TASKS

GENERATORS = {"expression": _expression, "fractions": _fractions, "equation": _equation}


def _value(numbers: list[int], ops: tuple[str, ...], bracket: bool) -> Fraction:
    def apply(a: Fraction, op: str, b: Fraction) -> Fraction:
        return a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b

    vals = [Fraction(n) for n in numbers]
    if bracket:
        return apply(vals[0], ops[0], apply(vals[1], ops[1], vals[2]))
    terms, signs = [vals[0]], []
    for op, v in zip(ops, vals[1:]):
        if op in "*/":
            terms[-1] = apply(terms[-1], op, v)
        else:
            terms.append(v)
            signs.append(op)
    out = terms[0]
    for op, v in zip(signs, terms[1:]):
        out = apply(out, op, v)
    return out


def expression_prompts(cfg: LevelConfig) -> set[str]:
    """Every expression text the generator can accept: each draw it makes, taken over all its values."""
    low = 0 if cfg.ops == "+-" else 1
    rewrites_products = cfg.max_operand > 12
    found: set[str] = set()
    for ops in itertools.product(cfg.ops, repeat=cfg.terms - 1):
        domains: list[range | list[int]] = []
        for j in range(cfg.terms):
            divisor = j >= 1 and ops[j - 1] == "/"  # only min(n, 12) of it is used
            overwritten = (j < len(ops) and ops[j] == "/") or (j >= 1 and ops[j - 1] == "*" and rewrites_products)
            if divisor:
                domains.append(range(max(low, 1), min(cfg.max_operand, 12) + 1))
            elif overwritten:
                domains.append([low])
            else:
                domains.append(range(low, cfg.max_operand + 1))
        quotients = [range(1, 13) if op == "/" else [0] for op in ops]
        factors = [range(2, 13) if op == "*" and rewrites_products else [0] for op in ops]
        for first, qs, fs in itertools.product(
            itertools.product(*domains), itertools.product(*quotients), itertools.product(*factors)
        ):
            numbers = list(first)
            for i, op in enumerate(ops):
                if op == "/":
                    numbers[i + 1] = max(1, min(numbers[i + 1], 12))
                    numbers[i] = numbers[i + 1] * qs[i]
            for i, op in enumerate(ops):
                if op == "*" and rewrites_products:
                    numbers[i + 1] = fs[i]
            text = str(numbers[0]) + "".join(f" {op} {n}" for op, n in zip(ops, numbers[1:]))
            for bracket in (False, True) if cfg.brackets and cfg.terms >= 3 else (False,):
                try:
                    value = _value(numbers, ops, bracket)
                except ZeroDivisionError:
                    continue
                if value.denominator != 1 or (value < 0 and not cfg.allow_negative):
                    continue
                if bracket:
                    head = text.split(" ", 2)
                    found.add(f"{head[0]} {head[1]} ({head[2]})")
                else:
                    found.add(text)
    return found


def distinct_count(level: int) -> int:
    cfg = LEVELS[level]
    if cfg.kind == "expression":
        return len(expression_prompts(cfg))
    if cfg.kind == "fractions":
        top = (lambda d: d - 1) if cfg.terms == 2 else (lambda d: cfg.max_operand)
        values = {Fraction(n, d) for d in range(2, cfg.max_operand + 1) for n in range(1, top(d) + 1)}
        return len(values) ** cfg.terms * len(cfg.ops) ** (cfg.terms - 1)  # reduced fractions print uniquely
    # a x + b = c (or = d x + e, d != a): the shown coefficients and x (solvable, a != d) fix the prompt.
    m = cfg.max_operand
    count = (2 * m + 1) * (2 * m) * (2 * m + 1)
    return count if cfg.terms <= 2 else count * (2 * m)


def test_every_level_has_a_registered_count():
    assert sorted(ARITH_DISTINCT_TASKS) == sorted(LEVELS)
    assert rlvr_envs.spec("math-arith").distinct_tasks == ARITH_DISTINCT_TASKS


@pytest.mark.parametrize("level", [lv for lv in sorted(LEVELS) if lv != 5])
def test_registered_counts_match_the_generator(level):
    assert distinct_count(level) == ARITH_DISTINCT_TASKS[level]


@pytest.mark.slow
def test_registered_count_matches_the_generator_at_level_5():  # about 10 s of CPU
    assert distinct_count(5) == ARITH_DISTINCT_TASKS[5]


@pytest.mark.parametrize(("level", "draws"), [(1, 4_000), (2, 20_000)])
def test_small_levels_reach_exactly_their_count_when_sampled(level, draws):
    """Independent of the enumeration: enough draws find every prompt, and never one more."""
    cfg, rng = LEVELS[level], random.Random(level)
    seen = {GENERATORS[cfg.kind](random.Random(rng.getrandbits(48)), cfg)[0] for _ in range(draws)}
    assert len(seen) == ARITH_DISTINCT_TASKS[level]


@pytest.mark.parametrize("level", [3, 4])
def test_sampled_prompts_stay_inside_the_enumeration(level):
    cfg, rng = LEVELS[level], random.Random(7)
    allowed = expression_prompts(cfg)
    drawn = {_expression(random.Random(rng.getrandbits(48)), cfg)[0] for _ in range(3_000)}
    assert drawn <= allowed


def test_sample_warns_past_the_count_and_list_shows_it(capsys):
    env = rlvr_envs.make("math-arith", level=1, isolation="inline")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SampleExhaustedWarning)
        env.sample(ARITH_DISTINCT_TASKS[1], seed=0)
    with pytest.warns(SampleExhaustedWarning, match="155 distinct tasks it can make at level 1"):
        env.sample(ARITH_DISTINCT_TASKS[1] + 1, seed=0)
    env.set_level(2)
    with pytest.warns(SampleExhaustedWarning, match="672"):
        env.sample(673, seed=0)
    from rlvr_envs.cli import main

    assert main(["list", "--family", "math"]) == 0
    assert "level 1: 155, level 2: 672" in capsys.readouterr().out

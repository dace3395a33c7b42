"""``math-arith``: procedural arithmetic and linear equations, seeded, unlimited, no download.

Level 1 is deliberately tiny (one-digit addition/subtraction, answers 0-18) so that a
few-million-parameter model can learn it on a CPU in minutes; each level adds one thing:
bigger numbers, more terms, multiplication, brackets and division, fractions, equations.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, ClassVar

from rlvr_envs import Difficulty, ProceduralEnv, Task
from rlvr_envs.checks import verifier_from_options
from rlvr_math.verifier import MathVerifier


@dataclass(frozen=True)
class LevelConfig:
    kind: str
    """``expression``, ``fractions`` or ``equation``."""
    max_operand: int
    terms: int
    ops: str
    """Operators drawn for expressions: a subset of ``+-*/``."""
    allow_negative: bool
    brackets: bool = False


LEVELS: dict[int, LevelConfig] = {
    1: LevelConfig("expression", 9, 2, "+-", allow_negative=False),
    2: LevelConfig("expression", 20, 2, "+-", allow_negative=False),
    3: LevelConfig("expression", 99, 2, "+-", allow_negative=True),
    4: LevelConfig("expression", 20, 3, "+-*", allow_negative=True),
    5: LevelConfig("expression", 50, 3, "+-*/", allow_negative=True, brackets=True),
    6: LevelConfig("fractions", 9, 2, "+-", allow_negative=True),
    7: LevelConfig("equation", 9, 2, "", allow_negative=True),
    8: LevelConfig("fractions", 12, 3, "+-*/", allow_negative=True),
    9: LevelConfig("equation", 20, 4, "", allow_negative=True),
}

_SYMBOL = {"+": "+", "-": "-", "*": "*", "/": "/"}


def _format(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _apply(a: Fraction, op: str, b: Fraction) -> Fraction:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return a / b


def _expression(rng: random.Random, cfg: LevelConfig) -> tuple[str, Fraction]:
    """An integer expression evaluated with the usual precedence, with exact division only."""
    while True:
        numbers = [rng.randint(0 if cfg.ops == "+-" else 1, cfg.max_operand) for _ in range(cfg.terms)]
        ops = [rng.choice(cfg.ops) for _ in range(cfg.terms - 1)]
        if "/" in ops:
            # Make each division exact by choosing the dividend as a multiple of the divisor.
            for i, op in enumerate(ops):
                if op == "/":
                    divisor = max(1, min(numbers[i + 1], 12))
                    numbers[i + 1] = divisor
                    numbers[i] = divisor * rng.randint(1, 12)
        if "*" in ops and cfg.max_operand > 12:
            for i, op in enumerate(ops):
                if op == "*":
                    numbers[i + 1] = rng.randint(2, 12)
        text = str(numbers[0])
        for op, n in zip(ops, numbers[1:]):
            text += f" {_SYMBOL[op]} {n}"
        if cfg.brackets and cfg.terms >= 3 and rng.random() < 0.5:
            # Bracket the last two terms: "a op (b op c)".
            head, tail = text.split(" ", 2)[:2], text.split(" ", 2)[2]
            text = f"{head[0]} {head[1]} ({tail})"
        try:
            value = _evaluate(text)
        except ZeroDivisionError:
            continue
        if value.denominator != 1 or (value < 0 and not cfg.allow_negative):
            continue
        return text, value


def _evaluate(text: str) -> Fraction:
    from rlvr_math.normalize import parse_number

    found = parse_number(text)
    if found is None:
        raise ZeroDivisionError(text)
    return found.value


def _fractions(rng: random.Random, cfg: LevelConfig) -> tuple[str, Fraction]:
    while True:
        parts = []
        for _ in range(cfg.terms):
            den = rng.randint(2, cfg.max_operand)
            parts.append(Fraction(rng.randint(1, den - 1 if cfg.terms == 2 else cfg.max_operand), den))
        ops = [rng.choice(cfg.ops) for _ in range(cfg.terms - 1)]
        # Brackets keep "a/b / c/d" from being read left to right as ((a/b)/c)/d.
        bracket = any(op in "*/" for op in ops)
        written = [f"({p.numerator}/{p.denominator})" if bracket else f"{p.numerator}/{p.denominator}" for p in parts]
        text = written[0] + "".join(f" {op} {w}" for op, w in zip(ops, written[1:]))
        try:
            value = _evaluate(text)
        except ZeroDivisionError:
            continue
        return text, value


def _equation(rng: random.Random, cfg: LevelConfig) -> tuple[str, Fraction]:
    x = Fraction(rng.randint(-cfg.max_operand, cfg.max_operand))
    a = rng.choice([i for i in range(-cfg.max_operand, cfg.max_operand + 1) if i not in (0,)])
    b = rng.randint(-cfg.max_operand, cfg.max_operand)
    if cfg.terms <= 2:
        c = a * x + b
        return f"Solve for x: {_linear(a, b)} = {c}", x
    # Both sides: a x + b = d x + e, with a != d.
    d = rng.choice([i for i in range(-cfg.max_operand, cfg.max_operand + 1) if i != a])
    e = a * x + b - d * x
    return f"Solve for x: {_linear(a, b)} = {_linear(d, int(e))}", x


def _linear(a: int, b: int) -> str:
    coefficient = {1: "x", -1: "-x", 0: "0"}.get(a, f"{a}x")
    if b == 0:
        return coefficient
    return f"{coefficient} {'+' if b > 0 else '-'} {abs(b)}"


class ArithEnv(ProceduralEnv):
    """Seeded arithmetic problems at ``level`` 1..9 (see ``LEVELS``); answers are integers or a/b."""

    family = "math"
    default_prompt_format = "plain"
    max_level: ClassVar[int | None] = max(LEVELS)

    def __init__(self, *, verifier: MathVerifier | None = None, **kwargs: Any) -> None:
        super().__init__(verifier_from_options(MathVerifier, kwargs, env_cls=type(self), verifier=verifier), **kwargs)

    def generate(self, rng: random.Random) -> Task:
        level = self.level or 1
        cfg = LEVELS[level]
        if cfg.kind == "equation":
            prompt, value = _equation(rng, cfg)
        elif cfg.kind == "fractions":
            text, value = _fractions(rng, cfg)
            prompt = f"Compute {text}."
        else:
            text, value = _expression(rng, cfg)
            prompt = f"What is {text}?"
        config: dict[str, Any] = asdict(cfg)
        return Task(
            id=f"L{level}",
            prompt=prompt,
            answer=_format(value),
            difficulty=Difficulty(level=level, config=config),
        )

    def answer_text(self, task: Task) -> str:
        return str(task.answer)

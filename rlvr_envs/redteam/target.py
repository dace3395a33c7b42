"""What an attack class sees of one task, and what it makes: a ``Target`` and its ``Probe``s.

A target is built only from the env's public hooks (``answer_text``, ``gold_completion``,
``prompt_format``, ``max_completion_chars``), never from a family's internals, so that a
plugin's env is attacked exactly like ours.
"""

from __future__ import annotations

import ast
import random
import re
import textwrap
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Context, Decimal, InvalidOperation, localcontext
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

from rlvr_envs.python_ast import parse_module
from rlvr_envs.verifier import DEFAULT_MAX_COMPLETION_CHARS

if TYPE_CHECKING:
    from rlvr_envs.env import Env
    from rlvr_envs.types import Task

GoldKind = Literal["none", "number", "short", "long", "code"]

_NUMBER = re.compile(r"-?(?:\d+(?:\.\d+)?|\.\d+)")
_FRACTION = re.compile(r"(-?\d+)/(\d+)")
_SHORT_CHARS = 200
_SHORT_WORDS = 16
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_SLOT = re.compile(r"\\boxed\s*\{|\\fbox\s*\{|<answer>", re.IGNORECASE)
_FLIPS = {"yes": "no", "no": "yes", "true": "false", "false": "true"}


@dataclass(frozen=True)
class Probe:
    """One completion an attack class makes, and what it must earn.

    ``expect_wrong`` True: the completion is not a correct answer, so any reward above 0 is a
    hole. None: the probe only checks robustness (it must not raise), its reward is not judged.
    """

    variant: str
    completion: Any
    expect_wrong: bool | None = True
    error_is_hole: bool = False
    """A ``verifier_error`` for this probe is a hole: the answer chose an infrastructure failure
    (left out of the update, or, repeated, failing the run) over its 0."""


@dataclass
class Target:
    """One task as the attack classes see it."""

    task: Task
    prompt: str
    user_message: str
    gold: str | None
    """The gold answer as the policy would write it (``env.answer_text``), or None."""
    gold_completion: str | None
    kind: GoldKind
    render: Callable[[str], str]
    """Puts an answer where the gold sits in the gold completion (else the prompt format's
    final-answer template): the layout the env expects, with other content."""
    think_format: bool
    """The env's prompt format asks for reasoning inside ``<think>``."""
    max_chars: int
    """The env's size cap on completions."""
    rng: random.Random = field(repr=False)
    hedged_completion: str | None = None
    others: tuple[tuple[str, str | None, str | None], ...] = ()
    """(prompt, gold, gold completion) of the run's other tasks: what a policy pasting one answer
    under every prompt would send (set by the runner)."""

    @property
    def value(self) -> Fraction | None:
        """The gold's value when it is a plain number (``3``, ``-2.5``, ``7/4``)."""
        return parse_value(self.gold) if self.kind == "number" and self.gold else None

    @property
    def wrong(self) -> str:
        """A value that is certainly not the gold (see ``wrong_value``)."""
        return wrong_value(self.gold or "")

    def same_as_gold(self, text: str) -> bool:
        return self.gold is not None and text.strip().casefold() == self.gold.strip().casefold()

    def same_value(self, text: str | None) -> bool:
        """Whether ``text`` states the gold: the same text, or the same plain number."""
        if text is None or self.same_as_gold(text):
            return text is not None
        value = parse_value(text)
        return value is not None and value == parse_value(self.gold or "")

    def in_prompt(self, word: str) -> bool:
        return word.strip().casefold() in self.prompt.casefold()


def parse_value(text: str) -> Fraction | None:
    s = text.strip().strip("$").strip()
    try:
        if _NUMBER.fullmatch(s):
            return Fraction(Decimal(s))
        m = _FRACTION.fullmatch(s)
        if m and int(m.group(2)) != 0:
            return Fraction(int(m.group(1)), int(m.group(2)))
    except (InvalidOperation, ValueError, ZeroDivisionError):
        return None
    return None


def wrong_value(gold: str) -> str:
    """A competitor for ``gold`` that is not equal to it: a number with its leading digit raised
    by one (``7`` -> ``8``, ``958`` -> ``1058``: wrong under any tolerance below 10%), the next letter of a
    multiple-choice letter, yes/no and true/false flipped, words reversed, and anything else as
    ``2*(gold) + 1``. Editing inside an expression is not safe (raising the last integer of
    ``1^{2}`` or reversing ``p + q`` keeps the value, ``q0`` -> ``q1`` reads as ``q``), nor is
    ``gold + 1`` alone (an antiderivative ``F + C`` absorbs it) or ``2*gold`` alone (a direction
    vector or an equation up to a factor)."""
    g = gold.strip()
    if not g:
        return "1729"
    if parse_value(g) is not None:
        number = g.strip("$").strip()
        m = _FRACTION.fullmatch(number)
        if m:
            return f"{int(m.group(1)) + int(m.group(2))}/{m.group(2)}"
        # A context of our own: libraries lower the global decimal precision (1.46802100542E+14).
        with localcontext(Context(prec=len(number) + 10)):
            value = Decimal(number)
            step = Decimal(1) if abs(value) < 10 else Decimal(10) ** abs(value).adjusted()
            return format(value + step, "f")
    if len(g) == 1 and g.isalpha():
        return chr((ord(g.upper()) - ord("A") + 1) % 26 + ord("A")) if g.isascii() else g + g
    flipped = _FLIPS.get(g.casefold())
    if flipped is not None:
        return flipped.capitalize() if g[0].isupper() else flipped
    if all(ch.isalpha() or ch == " " for ch in g):
        backwards = g[::-1]
        return backwards if backwards.casefold() != g.casefold() else g + "x"
    return f"2*({g}) + 1"


def looks_like_code(gold: str, gold_completion: str | None) -> bool:
    """A program rather than a value: a fenced gold completion, or gold text that is Python with a
    statement in it and is more than one plain line (``x = 3`` is an answer, not a program)."""
    if gold_completion is not None and "```" in gold_completion:
        return True
    if "\n" not in gold.strip() and not gold[:1].isspace():
        return False
    tree = parse_program(gold)
    return tree is not None and any(not isinstance(node, ast.Expr) for node in tree.body)


def parse_program(source: str) -> ast.Module | None:
    """``source`` (dedented) parsed as Python, or None when it is not Python."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return parse_module(textwrap.dedent(source))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def gold_kind(gold: str | None, gold_completion: str | None) -> GoldKind:
    if gold is None or not gold.strip():
        return "none"
    if looks_like_code(gold, gold_completion):
        return "code"
    if parse_value(gold) is not None:
        return "number"
    # A final answer, not a whole response: one line, a few words, no answer slot of its own (a
    # rubric's example response "... so 7 pens cost 21 dollars. \\boxed{21}" is not one).
    text = gold.strip()
    words = len(text.split()) + len(_CJK.findall(text))  # CJK: a character is about a word
    if "\n" not in text and len(text) <= _SHORT_CHARS and words <= _SHORT_WORDS and not _SLOT.search(text):
        return "short"
    return "long"


def renderer(env: Env, gold: str | None, gold_completion: str | None) -> Callable[[str], str]:
    """How this env lays out a final answer: the gold completion with the gold cut out where the
    gold occurs in it exactly once, else the prompt format's template."""
    if gold and gold_completion:
        for needle in (gold, gold.rstrip(), gold.strip()):
            if needle and gold_completion.count(needle) == 1:
                head, tail = gold_completion.split(needle)
                return lambda answer: head + answer + tail
    fmt = getattr(env, "prompt_format", None)
    if fmt is not None and hasattr(fmt, "render_answer"):
        return fmt.render_answer
    return lambda answer: f"The final answer is \\boxed{{{answer}}}."


def _hook(env: Env, name: str, task: Task) -> Any:
    """An env hook's value; a hook that fails is treated as absent (the report says so via n/a)."""
    try:
        return getattr(env, name)(task)
    except Exception:
        return None


def make_target(env: Env, task: Task) -> Target:
    gold = _hook(env, "answer_text", task)
    gold = gold if isinstance(gold, str) else None
    gold_completion = _hook(env, "gold_completion", task)
    gold_completion = gold_completion if isinstance(gold_completion, str) else None
    fmt = getattr(env, "prompt_format", None)
    user_message = fmt.user_message(task.prompt) if fmt is not None else task.prompt
    layout = " ".join(str(getattr(fmt, a, "") or "") for a in ("system_prompt", "instruction", "answer_template"))
    hedged = _hook(env, "hedged_completion", task)
    return Target(
        task=task,
        prompt=task.prompt,
        user_message=user_message,
        gold=gold,
        gold_completion=gold_completion,
        kind=gold_kind(gold, gold_completion),
        render=renderer(env, gold, gold_completion),
        think_format="<think>" in layout,
        max_chars=int(getattr(env, "max_completion_chars", DEFAULT_MAX_COMPLETION_CHARS)),
        rng=random.Random(task.fingerprint),
        hedged_completion=hedged if isinstance(hedged, str) else None,
    )

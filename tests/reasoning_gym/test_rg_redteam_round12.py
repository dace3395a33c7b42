"""Issue 26, round 12 on reasoning_gym: never looser than ``score_answer``, and no loose scorer in the mix.

A fuzz of all 103 rg datasets (2 tasks each, seed 12, the gold rewritten 44 ways beyond rounds 10-11,
9,000+ probes against the dataset's own ``score_answer``; numbers in the README) found us paying where
the scorer does not only for the gold's digits in another script (Devanagari, Thai, mathematical bold:
40 rows each, the same value), which we read as the digits they are. No rewrite that adds a value, a
negation, an operator, a magnitude or a doubt was paid: the gold beside its negation ("5 and -5",
"5 (-5)", "5/-5", "5 | -5", "-5 or 5", "+/-5", "∓5", "5或-5"), negated ("\\neg 5", "≠ 5", "\\neq 5",
"\\text{not }5", "¬5", "-(5)", "--5"), changed ("5!", "5^2", "5²", superscript digits, "5e1", "5k",
"5i", "5π", "5°", "5‰"), widened ("5–59", "5 to 59", "{5}", "[5, 5]", "~5", "5ish", "5…"), doubted
("5?", "maybe 5", "5 (probably)") or struck through with combining marks. The table below pins them,
one dataset per comparison kind: each rewrite we pay must be paid by the dataset too.

And the default mix: a sweep of every registered dataset (prompt lines with their list markers
stripped, every number in the prompt, constants: 60+ answers copied from the task without solving it)
finds one dataset whose scorer pays a copy of the prompt: ``propositional_logic`` (a premise copied
back, 60% of tasks), already ``catalog.HACKABLE`` and out of ``rg-composite-v1``'s default mix. Every
other copy paid only where it is the gold (a yes/no task's "yes", a number the task asks to pick).
"""

from __future__ import annotations

import re

import pytest

from rlvr_reasoning_gym.catalog import DATASETS, HACKABLE
from rlvr_reasoning_gym.generation import score
from rlvr_reasoning_gym.verifier import gold_text
from tests.reasoning_gym.tables import inline_env, negated, one_per_kind

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
REWRITES = {
    "and its negation": lambda g: f"{g} and {negated(g)}",
    "negation in parentheses": lambda g: f"{g} ({negated(g)})",
    "slash negation": lambda g: f"{g}/{negated(g)}",
    "pipe negation": lambda g: f"{g} | {negated(g)}",
    "negation or gold": lambda g: f"{negated(g)} or {g}",
    "ascii plus-minus": lambda g: f"+/-{g}",
    "minus-plus": lambda g: f"∓{g}",
    "cjk or": lambda g: f"{g}或{negated(g)}",
    "logical not": lambda g: f"\\neg {g}",
    "not equal": lambda g: f"≠ {g}",
    "latex neq": lambda g: f"\\neq {g}",
    "text not": lambda g: f"\\text{{not }}{g}",
    "not sign": lambda g: f"¬{g}",
    "minus group": lambda g: f"-({g})",
    "factorial": lambda g: f"{g}!",
    "squared": lambda g: f"{g}^2",
    "superscript two": lambda g: f"{g}²",
    "superscript digits": lambda g: g.translate(_SUPERSCRIPT),
    "exponent": lambda g: f"{g}e1",
    "kilo": lambda g: f"{g}k",
    "imaginary": lambda g: f"{g}i",
    "times pi": lambda g: f"{g}π",
    "degrees": lambda g: f"{g}°",
    "per mille": lambda g: f"{g}‰",
    "range": lambda g: f"{g}–{g}9",
    "to": lambda g: f"{g} to {g}9",
    "set": lambda g: f"{{{g}}}",
    "interval": lambda g: f"[{g}, {g}]",
    "tilde": lambda g: f"~{g}",
    "ish": lambda g: f"{g}ish",
    "ellipsis": lambda g: f"{g}…",
    "question": lambda g: f"{g}?",
    "maybe": lambda g: f"maybe {g}",
    "probably": lambda g: f"{g} (probably)",
    "struck through": lambda g: "".join(ch + "\u0336" for ch in g),
    "overline": lambda g: g + "\u0305",
}
NAMES = one_per_kind()


def _rg_pays(name: str, task, text: str) -> bool:
    payload = task.answer
    entry = {"question": task.prompt, "answer": payload.get("answer"), "metadata": payload["metadata"]}
    try:
        return score(name, payload.get("level"), payload.get("overrides", {}), text, entry) == 1.0
    except Exception:  # a scorer that raises pays nothing
        return False


@pytest.mark.parametrize("name", NAMES)
def test_no_rewrite_is_paid_that_the_dataset_refuses(name):
    env = inline_env(name)
    task = env.sample(1, seed=12)[0]
    gold = gold_text(name, task.answer)
    assert gold is not None and env.verify(task, env.prompt_format.render_answer(gold)).passed
    looser = []
    for kind, rewrite in REWRITES.items():
        text = rewrite(gold)
        if text.strip() == gold.strip():
            continue
        if env.verify(task, env.prompt_format.render_answer(text)).passed and not _rg_pays(name, task, text):
            looser.append((kind, text[:60]))
    assert looser == [], (name, gold[:60], looser)


_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\.?\d+[.)])\s*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_CONSTANTS = ("", "0", "1", "yes", "no", "True", "False", "None", "[]")


def _copies(prompt: str) -> dict[str, str]:
    """Answers a policy can write without solving: a line of the prompt (list marker stripped), a
    number of the prompt, a constant; keyed by strategy (the same key on every task)."""
    lines = [_LIST_MARK.sub("", line).strip() for line in prompt.splitlines() if line.strip()]
    numbers = _NUMBER.findall(prompt)
    out = {f"line {i}": line for i, line in enumerate(lines[:30])}
    out.update({f"line -{i}": line for i, line in enumerate(lines[::-1][:10])})
    out.update({f"number {i}": n for i, n in enumerate(numbers[:15])})
    out.update({f"constant {c!r}": c for c in _CONSTANTS})
    return out


@pytest.mark.slow  # every dataset's generator (knight_swap's alone takes seconds): ~1 minute in all
def test_every_scorer_that_pays_a_copy_of_the_prompt_is_out_of_the_default_mix():
    squash = re.compile(r"\s+")
    loose = {}
    for name in DATASETS:
        env = inline_env(name)
        tasks = env.sample(3, seed=11)
        paid: dict[str, int] = {}
        for task in tasks:
            gold = squash.sub("", gold_text(name, task.answer) or "").casefold()
            copies = _copies(task.prompt)
            verdicts = env.verify_batch([task] * len(copies), [f"<answer>{c}</answer>" for c in copies.values()])
            for (key, text), verdict in zip(copies.items(), verdicts):
                # A copy that is the gold is the task being easy, not the scorer being loose.
                if verdict.passed and squash.sub("", text).casefold() != gold:
                    paid[key] = paid.get(key, 0) + 1
        if paid and max(paid.values()) >= 2:  # one fixed copy paid on most tasks
            loose[name] = max(paid.items(), key=lambda kv: kv[1])
    assert set(loose) <= set(HACKABLE), loose
    assert "propositional_logic" in loose  # the measurement behind catalog.HACKABLE still holds

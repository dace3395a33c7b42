"""Issue 26, round 11 on reasoning_gym: never looser than the dataset's own ``score_answer``.

A fuzz of all 103 rg datasets (2 tasks each, the gold rewritten 35 ways, 7,000+ probes, against
``score_answer``; ``/tmp`` script, numbers in the README) found us paying where the scorer does not
only for rewrites that say the same thing (spaces as tabs or no-break spaces, the answer in
backticks, a trailing period, a case change of a case-free answer, full-width or Arabic-Indic
digits, "+5", "005", "5e0"). None of the rewrites that change or hedge the answer was paid. This
table pins those, one dataset per comparison kind: the gold beside its negation ("5 or -5", "±5",
"-5, 5"), the gold denied ("not 5", "5 is wrong"), the gold twice, reversed, with a letter before or
after it, as a percentage or an approximation. Each must score 0 while the gold itself scores 1.
"""

from __future__ import annotations

import pytest

from tests.reasoning_gym.tables import inline_env, negated, one_per_kind

REWRITES = {
    "value and its negation": lambda g: f"{g} or {negated(g)}",
    "plus-minus": lambda g: f"±{g}",
    "negation first": lambda g: f"{negated(g)}, {g}",
    "denied": lambda g: f"not {g}",
    "called wrong": lambda g: f"{g} is wrong",
    "twice on two lines": lambda g: f"{g}\n{g}",
    "reversed": lambda g: g[::-1],
    "letter before": lambda g: "x" + g,
    "letter after": lambda g: g + "x",
    "percent": lambda g: g + "%",
    "approximately": lambda g: f"≈{g}",
}
NAMES = one_per_kind()  # one dataset per comparison kind, so every reading of an answer is covered


@pytest.mark.parametrize("name", NAMES)
def test_a_rewrite_that_changes_or_hedges_the_gold_is_never_paid(name):
    env = inline_env(name)
    task = env.sample(1, seed=11)[0]
    gold = env.answer_text(task)
    assert gold is not None
    assert env.verify(task, env.prompt_format.render_answer(gold)).passed, (name, gold)
    paid = []
    for kind, rewrite in REWRITES.items():
        text = rewrite(gold)
        if text.strip() == gold.strip():
            continue  # a palindrome reversed is the gold itself
        if env.verify(task, env.prompt_format.render_answer(text)).passed:
            paid.append((kind, text[:60]))
    assert paid == [], (name, gold[:60], paid)

"""Red team round 5 (issue 26): inside the final answer, the gold beside a wrong value never
scores, on every kind of comparison (integers, decimals, text, word lists, grids, move lists,
scorers behind a shape guard).

Campaign: every registered dataset, 3 tasks each, 16 + 20 variants of the gold; nothing paid but
answers equal to the gold (an antiderivative's ``+ C/17``, ``17 - F + C``; other-script digits
read as the same number; case where the answer is case-free; a duplicated palindrome partition,
which the dataset's own scorer counts as the same set). This keeps the hedging variants on a
spread of datasets.
"""

from __future__ import annotations

import warnings

import pytest

import rlvr_envs

DATASETS = [
    "chain_sum", "gcd", "basic_arithmetic", "letter_counting", "caesar_cipher", "spell_backward",
    "word_sorting", "number_sorting", "knights_knaves", "tower_of_hanoi", "base_conversion", "maze",
]  # fmt: skip


def variants(gold: str) -> dict[str, str]:
    g = gold.strip()
    out = {
        "or-other": f"{g} or 17",
        "other-or": f"17 or {g}",
        "two-lines": f"17\n{g}",
        "two-lines-reversed": f"{g}\n17",
        "comma-list": f"{g}, 17",
        "bracketed-both": f"[{g}, 17]",
        "parenthesised-alternative": f"{g} (or maybe 17)",
        "negated": f"not {g}",
        "semicolon": f"17; {g}",
        "answer-is-other": f"The answer is 17, not {g}",
        "struck-out": f"~~{g}~~ 17",
        "either": f"either {g} or 17",
        "line-separator": f"{g}\u202817",
        "zero-width-then-other": f"{g}\u200b17",
    }
    return {k: v for k, v in out.items() if v.strip() != g}


@pytest.mark.parametrize("name", DATASETS)
def test_the_gold_beside_another_value_inside_the_answer_scores_zero(name):
    env = rlvr_envs.make(f"rg-{name}", size=6, isolation="inline")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tasks = env.sample(2, seed=5)
    checked = 0
    for task in tasks:
        gold = env.answer_text(task)
        assert gold and env.verify(task, f"<answer>{gold}</answer>").reward == 1.0
        for variant, text in variants(gold).items():
            verdict = env.verify(task, f"<answer>{text}</answer>")
            assert verdict.reward == 0.0, (variant, gold, text, verdict)
            checked += 1
    assert checked >= 20

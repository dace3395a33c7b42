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


# -- partial credit paid hedges ------------------------------------------------------------------
# With ``partial_credit=True`` a wrong answer earned reasoning-gym's own partial score, and many of
# its scorers pay by similarity or by ``len(gold) / len(answer)`` when the answer contains the gold:
# "aredineleS or 17" earned 0.99999 on spell_backward, a sudoku grid followed by another 0.77-0.88,
# "[gold, 17]" 0.4-0.99 across 40 datasets. An answer that holds the whole gold beside other text
# is a hedge: no partial credit, whatever the scorer says.
PARTIAL_DATASETS = [
    "spell_backward", "modulo_grid", "rotate_matrix", "sudoku", "word_sorting", "string_synthesis",
    "number_filtering", "letter_counting", "mahjong_puzzle", "futoshiki", "word_sequence_reversal", "products",
]  # fmt: skip


def hedges(gold: str) -> dict[str, str]:
    return {
        "or-other": f"{gold} or 17",
        "other-then-gold": f"17\n{gold}",
        "bracketed-both": f"[{gold}, 17]",
        "sentence": f"It is {gold}, or maybe 17, I am not sure",
        "gold-then-junk": f"{gold}x",
        "spaced-out": " ".join(gold) + " 17",
    }


@pytest.mark.parametrize("name", PARTIAL_DATASETS)
def test_partial_credit_never_pays_an_answer_holding_the_gold_beside_other_text(name):
    env = rlvr_envs.make(f"rg-{name}", size=6, isolation="inline", partial_credit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tasks = env.sample(2, seed=3)
    for task in tasks:
        gold = env.answer_text(task)
        assert gold and env.verify(task, f"<answer>{gold}</answer>").reward == 1.0
        for variant, text in hedges(gold).items():
            verdict = env.verify(task, f"<answer>{text}</answer>")
            assert verdict.reward == 0.0, (variant, gold, text, verdict.details)


def test_partial_credit_still_pays_a_near_miss():
    env = rlvr_envs.make("rg-spell_backward", size=6, isolation="inline", partial_credit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        task = env.sample(1, seed=3)[0]
    gold = env.answer_text(task)
    near = gold[:-1] + ("a" if gold[-1] != "a" else "b")  # one letter wrong: not the gold, no hedge
    verdict = env.verify(task, f"<answer>{near}</answer>")
    assert 0.0 < verdict.reward < 1.0, verdict.details


@pytest.mark.parametrize("name", ["spell_backward", "rotate_matrix", "word_sorting"])
def test_the_shipped_attacker_finds_no_hedge_paid_under_partial_credit(name):
    """``multi_answer`` is left out: under partial credit its last (wrong) answer earns that
    answer's own partial score, the gold in an earlier tag adding nothing (checked below)."""
    from rlvr_envs.redteam import run_redteam

    env = rlvr_envs.make(f"rg-{name}", size=6, isolation="inline", partial_credit=True)
    report = run_redteam(env, n=3, quick=True, classes=["hedge", "after_answer"])
    assert report.holes == 0, report.summary_text()
    task = env.sample(1, seed=4)[0]
    gold = env.answer_text(task)
    wrong = gold[::-1] if gold[::-1] != gold else gold + "x"
    alone = env.verify(task, f"<answer>{wrong}</answer>").reward
    assert env.verify(task, f"<answer>{gold}</answer>\n<answer>{wrong}</answer>").reward <= alone

"""Red team round 6 (issue 26) against the reasoning_gym ids' answer tags.

Classes that scored 1 (or paid partial credit) on a wrong or taken-back answer before this round:
a later final answer of another kind after the tag ("<answer>A</answer>" then ``#### 17``, a box,
"Final answer: 17"); the read tag hidden or struck out after a visible wrong one (an HTML comment,
``<div hidden>``, ``display:none``, white text, ``<s>``, ``~~``); a condition, an approximation or
words in a language no lexicon covers after the tag; and, under partial credit, hedges holding the
gold with zero-width characters between its letters or with its punctuation dropped.
Honest rows: the same answers with a normal sentence after them, or inside a code fence.
"""

from __future__ import annotations

import warnings

import pytest

import rlvr_envs

DATASETS = ["chain_sum", "maze", "word_sorting", "knights_knaves", "spell_backward", "base_conversion", "gcd"]


def _tasks(name: str, partial_credit: bool = False, n: int = 2):
    env = rlvr_envs.make(f"rg-{name}", size=6, isolation="inline", partial_credit=partial_credit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return env, env.sample(n, seed=7)


def attacks(g: str, w: str) -> dict[str, str]:
    return {
        "tag-then-hashes": f"<answer>{g}</answer>\n#### {w}",
        "tag-then-box": f"<answer>{g}</answer>\n\\boxed{{{w}}}",
        "tag-then-final": f"<answer>{g}</answer>\nFinal answer: {w}",
        "fence-then-or": f"```\n<answer>{g}</answer>\n``` or {w}",
        "next-paragraph-or": f"<answer>{g}</answer>\n\nOr {w}.",
        "condition": f"<answer>{g}</answer> if n is odd",
        "condition-de": f"<answer>{g}</answer>, wenn n ungerade ist",
        "approximation": f"<answer>{g}</answer> (roughly)",
        "approximation-el": f"<answer>{g}</answer> (περίπου)",
        "swahili": f"<answer>{g}</answer>, lakini sina uhakika",
        "greek": f"<answer>{g}</answer>, αλλά δεν είμαι σίγουρος",
        "thai": f"<answer>{g}</answer> แต่ไม่แน่ใจ",
        "latvian": f"<answer>{g}</answer>, bet neesmu pārliecināts",
        "hidden-last": f"<answer>{w}</answer><div hidden><answer>{g}</answer></div>",
        "comment-last": f"<answer>{w}</answer><!-- <answer>{g}</answer> -->",
        "struck-last": f"<answer>{w}</answer> <s><answer>{g}</answer></s>",
        "del-last": f"<answer>{w}</answer> <del><answer>{g}</answer></del>",
        "tilde-last": f"<answer>{w}</answer> ~~<answer>{g}</answer>~~",
        "display-none": f'<span style="display:none"><answer>{g}</answer></span>',
        "white-last": f'<answer>{w}</answer><span style="color:white"><answer>{g}</answer></span>',
    }


def honest(g: str) -> dict[str, str]:
    return {
        "plain": f"<answer>{g}</answer>",
        "sentence-after": f"<answer>{g}</answer>\n\nThis is the answer because it satisfies every constraint.",
        "in-fence": f"```\n<answer>{g}</answer>\n```",
        "same-hashes": f"<answer>{g}</answer>\n#### {g}",
        "struck-draft-first": f"<s><answer>17</answer></s> <answer>{g}</answer>",
        "closed-comment-first": f"<!-- draft --> <answer>{g}</answer>",
    }


@pytest.mark.parametrize("name", DATASETS)
def test_taken_back_hidden_or_later_answers_score_zero(name):
    env, tasks = _tasks(name)
    for task in tasks:
        gold = env.answer_text(task)
        wrong = "17" if gold.strip() != "17" else "18"
        for kind, text in attacks(gold, wrong).items():
            verdict = env.verify(task, text)
            assert verdict.reward == 0.0, (kind, gold, verdict.details)
        for kind, text in honest(gold).items():
            verdict = env.verify(task, text)
            assert verdict.reward == 1.0, (kind, gold, verdict.details)


@pytest.mark.parametrize("name", ["spell_backward", "sudoku", "futoshiki", "sentence_reordering", "word_sorting"])
def test_partial_credit_sees_through_zero_width_and_dropped_punctuation(name):
    env, tasks = _tasks(name, partial_credit=True)
    for task in tasks:
        gold = env.answer_text(task)
        for text in (
            "\u200b".join(gold) + " or 17",
            "".join(ch if ch not in ",.'\"[]" else " " for ch in gold) + " or 17",
            gold + " \u2060or 17",
        ):
            verdict = env.verify(task, f"<answer>{text}</answer>")
            assert verdict.reward == 0.0, (text[:60], verdict.details)

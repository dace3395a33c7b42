"""Issue 26, round 14 on reasoning_gym: answer markup that does not balance around the gold pays nothing.

Round 13's ``broken_markup`` class paid on 67 of 104 rg ids (``redteam -n 4``, every variant): ``\\boxed{A} B}``
(a closing brace with no opener after the box, on 67) and ``<answer>A</answer>B</answer>`` (rg-acre,
rg-spell_backward). Read as balanced markup reads it, the answer's markup encloses a second value. The
verifier now refuses it (``format_error``, ``details["tail"] == "broken_markup"``; ``rlvr_envs.tail_markup``),
and the same sweep finds 0 of 104. The probes (``tests/test_core_markup_round14.py``'s table, beyond the
attacker's: other frames, depth 3, escaped braces, tags in other case and spacing, reopened before and after)
run here on one dataset per comparison kind and on datasets whose golds hold braces, brackets or LaTeX; each
paid 1.0 on some of them before. Honest layouts and typos around one value still pay: every rg id's gold in
every prompt format is ``tests/reasoning_gym/test_rg_every_id.py``'s, and 16,640 gold renderings (40 tasks of
each id, four layouts) were refused 0 times.
"""

from __future__ import annotations

import pytest

import rlvr_envs
from rlvr_envs.redteam import run_redteam
from tests.reasoning_gym.tables import inline_env, one_per_kind
from tests.test_core_markup_round14 import BROKEN, STANDS

# Golds with braces, brackets, quotes, LaTeX or arrows: the markup reader must not trip on the gold's own text.
MARKUP_GOLDS = ["codeio", "fraction_simplification", "group_anagrams", "list_functions", "quantum_lock"]
NAMES = sorted({*one_per_kind(), *MARKUP_GOLDS})
WRONG = "17"
HONEST = [
    "plain-box",
    "sentence",
    "tag",
    "r1",
    "box-in-tag",
    "typo-extra-brace",
    "typo-box-in-box",
    "typo-box-in-box-depth-3",
    "typo-fbox-around",
    "typo-tag-closed-twice",
    "typo-tag-opened-twice",
    "bold-group",
    "stray-brace-before-answer",
    "stray-tag-before-answer",
]


def _task_and_gold(name: str):
    env = inline_env(name)
    task = env.sample(1, seed=14)[0]
    gold = env.answer_text(task)
    assert gold is not None
    return env, task, gold


@pytest.mark.parametrize("name", NAMES)
def test_broken_markup_around_the_gold_is_refused(name):
    env, task, gold = _task_and_gold(name)
    paid = []
    for kind, template in BROKEN.items():
        completion = template.replace("@A", gold).replace("@B", WRONG)
        verdict = env.verify(task, completion)
        if verdict.reward > 0 or verdict.details.get("tail") != "broken_markup":
            paid.append((kind, verdict.reward, str(verdict.reason), completion[:60]))
    assert paid == [], (name, gold[:40], paid)


@pytest.mark.parametrize("name", NAMES)
def test_honest_layouts_and_typos_around_one_value_still_pay(name):
    env, task, gold = _task_and_gold(name)
    refused = []
    for kind in HONEST:
        completion = STANDS[kind].replace("@A", gold)
        verdict = env.verify(task, completion)
        if not verdict.passed:
            refused.append((kind, str(verdict.reason), verdict.details.get("refused"), completion[:60]))
    assert refused == [], (name, gold[:40], refused)


# Ids the round-13 class paid on, one per way it paid (a stray brace; a stray closing tag; a JSON gold).
SWEPT = ["acre", "codeio", "spell_backward", "word_sorting"]


@pytest.mark.parametrize("name", SWEPT)
def test_the_attackers_broken_markup_class_finds_nothing(name):
    report = run_redteam(inline_env(name), n=4, seed=0, classes="broken_markup")
    result = report.result("broken_markup")
    assert report.raised == 0
    assert result.applicable and not result.holes, [o.example()["completion"][:80] for o in result.holes[:3]]


@pytest.mark.parametrize("name", ["word_sorting", "spell_backward", "number_sorting"])
def test_no_partial_credit_for_broken_markup(name):
    # A similarity scorer pays a near miss up to 0.99; what broken markup encloses is no near miss of anything.
    env = rlvr_envs.make(f"rg-{name}", partial_credit=True, isolation="inline")
    task = env.sample(1, seed=14)[0]
    gold = env.answer_text(task)
    assert gold is not None and env.verify(task, f"<answer>{gold}</answer>").reward == 1.0
    paid = {}
    for kind, template in BROKEN.items():
        reward = env.verify(task, template.replace("@A", gold).replace("@B", WRONG)).reward
        if reward > 0:
            paid[kind] = reward
    assert paid == {}, (name, paid)

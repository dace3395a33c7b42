"""Every rg id: what follows the final <answer> can take it back (hedge, second value, magnitude).

Gold answer + a hedged or value-changing tail scores 0 (reason ``wrong``, ``details["tail"]``
names the class), in every claimed language; gold + an honest tail still scores 1.
"""

from __future__ import annotations

from functools import cache

import pytest

import rlvr_envs
from rlvr_envs import Reason
from rlvr_reasoning_gym.catalog import DATASETS

FAST_IDS = ("rg-chain_sum", "rg-word_sorting", "rg-knights_knaves")
IDS = [
    pytest.param(env_id, marks=() if env_id in FAST_IDS else pytest.mark.slow)
    for env_id in [f"rg-{name}" for name in DATASETS]
]

# (class, tail) in en, zh, ja, ko, de, fr, es (+ it, pt, ru): none of these rows is in the core's table.
TAKEN_BACK = [
    ("hedge", " But I am not sure; it might be something else."),
    ("hedge", " 不过我不太确定。"),
    ("hedge", " でも、わかりません。"),
    ("hedge", " 그런데 모르겠어요."),
    ("hedge", " Ich bin mir aber nicht ganz sicher."),
    ("hedge", " Je pense, mais je ne sais pas."),
    ("hedge", " Quizás, no sé."),
    ("hedge", " Forse."),
    ("hedge", " Não sei."),
    ("hedge", " Не знаю."),
    ("value_word", " thousand."),
    ("value_word", " Tausend"),
    ("value_word", " millions"),
    ("value_word", " миллиардов"),
    ("value_word", "万"),
    ("value_word", " \\times 10^{2}"),
    ("alternative", " or 7"),
    ("alternative", " oder 7"),
    ("alternative", "或7"),
    ("alternative", " 또는 7"),
]
HONEST = ["", "\n", " Hope this helps!", "\n\n**Method:** I worked through it step by step.", "\n---\n"]


@cache
def _env(env_id: str) -> rlvr_envs.Env:
    return rlvr_envs.make(env_id, isolation="inline")


def _task(env_id: str) -> rlvr_envs.Task:
    return _env(env_id).sample(1, seed=7)[0]


@pytest.mark.parametrize("env_id", IDS)
def test_a_tail_that_takes_the_gold_answer_back_scores_zero(env_id):
    env, task = _env(env_id), _task(env_id)
    gold = env.gold_completion(task)
    assert env.verify(task, gold).reward == 1.0
    for kind, tail in TAKEN_BACK:
        verdict = env.verify(task, gold + tail)
        assert verdict.reward == 0.0 and verdict.reason == Reason.WRONG, (env_id, tail, verdict)
        assert verdict.details.get("tail") == kind, (env_id, tail, verdict.details)


@pytest.mark.parametrize("env_id", IDS)
def test_an_honest_tail_keeps_the_gold_answer_at_one(env_id):
    env, task = _env(env_id), _task(env_id)
    gold = env.gold_completion(task)
    for tail in HONEST:
        verdict = env.verify(task, gold + tail)
        assert verdict.passed and verdict.reward == 1.0, (env_id, tail, verdict)


def test_partial_credit_pays_nothing_for_a_taken_back_answer():
    env = rlvr_envs.make("rg-chain_sum", isolation="inline", partial_credit=True)
    task = env.sample(1, seed=3)[0]
    verdict = env.verify(task, env.gold_completion(task) + " But I am not sure.")
    assert verdict.reward == 0.0 and "not sure" in verdict.details["refused"]

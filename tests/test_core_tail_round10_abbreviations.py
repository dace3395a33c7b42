"""A dotted abbreviation after the answer is one word: "\\boxed{3} (e.g.)" offers the answer as an example.

The answer's sentence ends at a letter's dot ("(e.|g.)", ", z.|B."), so the remark read was one harmless
letter and the hedge was paid (found by the lead after round 10, in math and reasoning-gym alike). The remark
is now read to its bracket's close (or past an abbreviation's dot), and the abbreviation is read whole: the
restating ones ("i.e.", "d.h.") stand, the rest qualify the answer."""

from __future__ import annotations

import pytest

import rlvr_envs

HOSTILE = ["(e.g.)", "(e.g)", "(e. g.)", "(z.B.)", "(o.ä.)", "(e.g. {g})", ", e.g.", ", z.B.", "(p.ex.)", "（e.g.）"]
HONEST = ["", ".", " (i.e.)", " (i. e.)", ", i.e.", " (final answer)", ". (QED)"]


@pytest.fixture(scope="module")
def envs():
    out = {}
    for env_id, layout in (
        ("math-arith-v4", "The answer is \\boxed{{{g}}}"),
        ("rg-chain_sum-v0", "<answer>{g}</answer>"),
    ):
        env = rlvr_envs.make(env_id)
        env.reset(seed=3)
        task = env.current_task
        out[env_id] = (env, task, layout.format(g=env.answer_text(task)), env.answer_text(task))
    return out


@pytest.mark.parametrize("env_id", ["math-arith-v4", "rg-chain_sum-v0"])
@pytest.mark.parametrize("tail", HOSTILE)
def test_an_abbreviation_that_offers_the_answer_as_an_example_is_refused(envs, env_id, tail):
    env, task, gold, g = envs[env_id]
    assert env.verify(task, gold).reward == 1.0
    sep = "" if tail[:1] in ",，" else " "
    assert env.verify(task, gold + sep + tail.format(g=g)).reward == 0.0


@pytest.mark.parametrize("env_id", ["math-arith-v4", "rg-chain_sum-v0"])
@pytest.mark.parametrize("tail", HONEST)
def test_a_restating_abbreviation_or_label_still_stands(envs, env_id, tail):
    env, task, gold, _ = envs[env_id]
    assert env.verify(task, gold + tail).reward == 1.0

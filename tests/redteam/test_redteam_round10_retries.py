"""The attacker's retry_enumeration class: a wrong attempt, then the gold on a later turn of a plain
multi-turn env. It finds the hole where later successes are paid (``retry_discount=1.0``, the loop
before round 10) and reports none under the default (turn 1 paid only)."""

from __future__ import annotations

import rlvr_envs
from rlvr_envs.redteam import BY_NAME, run_redteam


def _holes(**kwargs):
    env = rlvr_envs.make("math-arith-v4")
    report = run_redteam(
        env,
        n=3,
        classes=["retry_enumeration"],
        multi_turn=lambda: rlvr_envs.make("math-arith-v4", max_turns=3, **kwargs),
        quick=False,
    )
    return report, {o.variant for o in report.result("retry_enumeration").holes}


def test_the_class_is_listed_and_documented():
    assert "retry_enumeration" in BY_NAME and len(BY_NAME["retry_enumeration"].doc) > 80


def test_a_loop_that_pays_every_success_is_found():
    report, holes = _holes(retry_discount=1.0)
    assert {"1-wrong-then-gold:turn-2", "2-wrong-then-gold:turn-3"} <= holes, report.summary_text()
    assert report.exit_code == 1
    # The wrong attempts themselves earn nothing: only the retry is the hole.
    assert not {h for h in holes if h.endswith("turn-1")}


def test_the_default_pays_no_retry():
    report, holes = _holes()
    assert report.result("retry_enumeration").tasks == 3 and len(report.result("retry_enumeration").outcomes) >= 9
    assert holes == set() and report.holes == 0, report.summary_text()


def test_a_single_turn_env_without_a_multi_turn_maker_is_not_applicable():
    report = run_redteam(rlvr_envs.make("math-arith-v4"), n=2, classes=["retry_enumeration"])
    assert report.holes == 0 and report.result("retry_enumeration").note

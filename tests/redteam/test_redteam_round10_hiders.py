"""Round 10's hiders in the shipped attacker (full mode): the answer moved off the page or over other
text, or set in a colour defined elsewhere. A last-box reader pays every one (so the probes can
fail a verifier); the math family, which reads them as hidden since round 10, pays none."""

from __future__ import annotations

import rlvr_envs
from rlvr_envs.redteam import run_redteam
from rlvr_envs.redteam.lexicon import HIDERS
from tests.redteam.toys_round6 import LastSlotEnv

ROUND10 = [
    "hspace-overprint",
    "llap-zero-box",
    "raisebox-away",
    "fontsize-0",
    "definecolor-white",
    "colorlet-pale",
    "css-offpage",
    "css-near-white",
]


def _variants(report) -> set[str]:
    return {o.variant for o in report.result("hidden_answer").holes}


def test_the_round10_hiders_are_in_the_lexicon_with_an_answer_slot():
    for name in ROUND10:
        assert "{x}" in HIDERS[name] and HIDERS[name].format(x="7").count("7") >= 1, name


def test_a_last_box_reader_pays_every_round10_hider():
    hidden = _variants(run_redteam(LastSlotEnv(), n=3, classes=["hidden_answer"]))
    for name in ROUND10:
        assert f"wrong-then-hidden-gold:{name}" in hidden and f"hidden-gold-only:{name}" in hidden, name


def test_the_math_family_pays_none_of_them():
    report = run_redteam(rlvr_envs.make("math-arith-v4"), n=3, classes=["hidden_answer"])
    assert report.result("hidden_answer").summary(0)["expected_wrong"] > 0
    assert not _variants(report) & {
        f"{how}:{name}" for how in ("wrong-then-hidden-gold", "hidden-gold-only") for name in ROUND10
    }
    assert report.holes == 0, report.summary_text()

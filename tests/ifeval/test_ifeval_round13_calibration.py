"""Round 13's rules (``rlvr_ifeval.round13``, ``rlvr_ifeval.asides``, ``swapped.restated_prompt(part=True)``)
on the labelled responses (../shared/data): the whole verdict of ``-v13`` against ``-v12``'s, for the
data and the synth flags, over the 835 labelled IFEval and IFBench rows with their own prompts as
the background (what an env over them builds).

Issue 26's bound: the gate refuses at most 1% of labelled-good responses. Round 13 refuses none
that ``-v12`` pays (data: 481 of 493 paid before and after; synth's flags, calibrated for the
generator's own prompts, 390 of 493 before and after), and each rule alone finds no
labelled-good response among those the gate would read (tasks without a short-answer instruction,
responses that hold the units the overlap rule asks for).
The bounds' margins are in ``asides`` and ``round13``'s constants: one step looser and the rule
alone refuses a labelled-good answer (asides: keys 2372, 2416, 2531, 3401 with one filler, 1634, 2590, 2918,
3540 with three free mentions, 1936, 3453 with three content words at the edge, 1601 with three
asides; the label: 1670 with two chance words).
"""

from __future__ import annotations

from typing import Any

import pytest

from rlvr_ifeval import asides, round13, swapped
from rlvr_ifeval.relevance import MAX_RELEVANCE_CHARS, needed, task_units, units
from rlvr_ifeval.scoring import build_checkers
from tests.ifeval.calibration_rows import labelled_rows, paid_keys


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return labelled_rows()


@pytest.mark.parametrize("family", ["data", "synth"])
def test_round_13_refuses_no_labelled_good_answer_that_round_12_pays(rows: list[dict[str, Any]], family: str) -> None:
    old, new = paid_keys(rows, [f"ifeval-{family}-v12", f"ifeval-{family}-v13"])
    paid = {12: old, 13: new}
    good = sum(1 for r in rows if r["reference_strict_all"])
    print(f"\n{family}: labelled-good paid -v12 {len(paid[12])}/{good}, -v13 {len(paid[13])}/{good}")
    assert good == 493
    assert paid[13] == paid[12]


@pytest.mark.parametrize("labels", [False, True], ids=["data", "synth"])
def test_each_rule_alone_finds_no_labelled_good_answer(rows: list[dict[str, Any]], labels: bool) -> None:
    found = []
    for r in rows:
        if not r["reference_strict_all"]:
            continue
        checkers = tuple(build_checkers(r["instruction_id_list"], r["kwargs"]))
        if round13.options_hedged(r["response"][:MAX_RELEVANCE_CHARS], checkers) is not None:
            found.append(("options", r["key"]))
        if any(c.allows_short_answer() for c in checkers):
            continue  # (round13.round13 reads no further there)
        task = task_units(r["prompt"], checkers, round9=True, round10=True)
        need = needed(len(task.units), 0.5) if labels else task.needed
        if len(task.units & units(r["response"][:MAX_RELEVANCE_CHARS])) < need:
            continue  # (the overlap rule refuses it before these rules read it: key 2628 on synth's flags)
        if asides.aside_mentions(r["prompt"], r["response"], task.units, max(1, need)) is not None:
            found.append(("asides", r["key"]))
        share = 0.0 if labels else round13.MIN_LABEL_PROMPT_SHARE
        if round13.label_by_chance(r["prompt"], r["response"], task.units, share) is not None:
            found.append(("label", r["key"]))
        if swapped.restated_prompt(r["prompt"], r["response"], 5, checkers, part=True) is not None:
            found.append(("restated", r["key"]))
    assert found == []

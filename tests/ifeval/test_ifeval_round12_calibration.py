"""Round 12's rules (``rlvr_ifeval.stuffing``) on the labelled responses (../shared/data): the whole
verdict of ``-v12`` against ``-v11``'s, for the data and the synth flags, over the 835 labelled
IFEval and IFBench rows with their own prompts as the background (what an env over them builds).

Issue 26's bound: the gate refuses at most 1% of labelled-good responses. Round 12 refuses none
that ``-v11`` pays (data: 481 of 493 paid before and after; synth's flags, calibrated for the
generator's own prompts, 390 of 493 before and after), and each rule alone finds no
labelled-good response among those the gate reaches.
"""

from __future__ import annotations

from typing import Any

import pytest

from rlvr_ifeval import stuffing
from rlvr_ifeval.relevance import needed, task_units
from rlvr_ifeval.scoring import build_checkers
from tests.ifeval.calibration_rows import labelled_rows, paid_keys


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return labelled_rows()


@pytest.mark.parametrize("family", ["data", "synth"])
def test_round_12_refuses_no_labelled_good_answer_that_round_11_pays(rows: list[dict[str, Any]], family: str) -> None:
    old, new = paid_keys(rows, [f"ifeval-{family}-v11", f"ifeval-{family}-v12"])
    paid = {11: old, 12: new}
    good = sum(1 for r in rows if r["reference_strict_all"])
    print(f"\n{family}: labelled-good paid -v11 {len(paid[11])}/{good}, -v12 {len(paid[12])}/{good}")
    assert good == 493
    assert paid[12] == paid[11]


@pytest.mark.parametrize("labels", [False, True], ids=["data", "synth"])
def test_each_rule_alone_finds_no_labelled_good_answer(rows: list[dict[str, Any]], labels: bool) -> None:
    found = []
    for r in rows:
        if not r["reference_strict_all"]:
            continue
        checkers = tuple(build_checkers(r["instruction_id_list"], r["kwargs"]))
        task = task_units(r["prompt"], checkers, round9=True, round10=True)
        need = needed(len(task.units), 0.5) if labels else task.needed
        units = task.units
        if stuffing.framed_units(r["prompt"], r["response"], units, max(1, need)) is not None:
            found.append(("framed", r["key"]))
        if stuffing.mixed_script(r["prompt"], r["response"], checkers) is not None:
            found.append(("mixed", r["key"]))
        if stuffing.restated_prompt(r["prompt"], r["response"], 5, checkers) is not None:
            found.append(("restated", r["key"]))
    assert found == []

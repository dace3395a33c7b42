"""Round 15's rule (``rlvr_ifeval.round15``) on the labelled responses (../shared/data): the whole
verdict of ``-v15`` against ``-v14``'s, for the data and the synth flags, over the 835 labelled IFEval
and IFBench rows with their own prompts as the background (what an env over them builds).

Issue 26's bound: the gate refuses at most 1% of labelled-good responses. Round 15 refuses none that
``-v14`` pays (data: 481 of 493 paid before and after; synth's flags 390 of 493 before and after),
and the rule alone, with either id's bounds, finds no labelled-good response. The bounds are the
calibration's, not the examples': each one loosened by a step finds labelled-good answers (asserted
below), so none of them is slack.
"""

from __future__ import annotations

from typing import Any

import pytest

from rlvr_ifeval import contrast, round15
from rlvr_ifeval.relevance import MAX_RELEVANCE_CHARS, MIN_RESPONSE_WORDS, task_units
from rlvr_ifeval.scoring import build_checkers
from tests.ifeval.calibration_rows import labelled_rows, paid_keys

GOOD = 493


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return labelled_rows()


@pytest.fixture(scope="module")
def background(rows: list[dict[str, Any]]) -> contrast.Background:
    found = contrast.Background.build(
        (r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows
    )
    assert found is not None
    return found


@pytest.mark.parametrize("family", ["data", "synth"])
def test_round_15_refuses_no_labelled_good_answer_that_round_14_pays(rows: list[dict[str, Any]], family: str) -> None:
    paid = paid_keys(rows, [f"ifeval-{family}-v14", f"ifeval-{family}-v15"])
    good = sum(1 for r in rows if r["reference_strict_all"])
    print(f"\n{family}: labelled-good paid -v14 {len(paid[0])}/{good}, -v15 {len(paid[1])}/{good}")
    assert good == GOOD
    assert paid[1] == paid[0]


def _found(rows: list[dict[str, Any]], background: contrast.Background, min_words: int) -> list[Any]:
    """The labelled-good rows the rules alone refuse (with the gate's ``min_words``)."""
    found = []
    for r in rows:
        if not r["reference_strict_all"]:
            continue
        checkers = tuple(build_checkers(r["instruction_id_list"], r["kwargs"]))
        if any(c.allows_short_answer() for c in checkers):
            continue  # (round15.round15_text reads no further there)
        task = task_units(r["prompt"], checkers, round9=True, round10=True).units
        head = r["response"][:MAX_RELEVANCE_CHARS]
        if round15.answered_elsewhere(r["prompt"], head, task, background, min_words) is not None:
            found.append(r["key"])
        if round15.echoed_topic_only(r["prompt"], head, task) is not None:
            found.append(("echoed_topic_only", r["key"]))
    return found


@pytest.mark.parametrize("min_words", [MIN_RESPONSE_WORDS, 20], ids=["data", "synth"])
def test_the_rule_alone_finds_no_labelled_good_answer(
    rows: list[dict[str, Any]], background: contrast.Background, min_words: int
) -> None:
    assert _found(rows, background, min_words) == []


# Each bound one step looser (the module's constants): labelled-good answers it would refuse.
LOOSER = {
    "MIN_HOME_RARE": 1.6,  # keys 1967, 3326: homes met with 1.85 and 1.77 times the rare weight
    "MIN_DWELT_UNITS": 1,  # 2691, 3401, IFBench 240: one unit of the other prompt said twice
    "MIN_COVER_RATIO": 2.0,  # 2229, 2605, 57, 27: answers that cover a neighbouring prompt well
    "MIN_HOME_COVER": 0.25,  # the rubric 1670 (its own task covered whole, none said twice)
    "MIN_UNTAKEN_COVER": 0.3,  # 2139: its own task never said twice, another prompt covered 30%
    "MIN_UNTAKEN_DWELT": 2,  # 2139 again
}


@pytest.mark.parametrize("name", sorted(LOOSER))
def test_each_bound_one_step_looser_refuses_labelled_good_answers(
    rows: list[dict[str, Any]], background: contrast.Background, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(round15, name, LOOSER[name])
    assert _found(rows, background, MIN_RESPONSE_WORDS) != []

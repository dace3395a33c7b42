"""Round 14's rules (``rlvr_ifeval.round14``) on the labelled responses (../shared/data): the whole
verdict of ``-v14`` against ``-v13``'s, for the data and the synth flags, over the 835 labelled IFEval
and IFBench rows with their own prompts as the background (what an env over them builds).

Issue 26's bound: the gate refuses at most 1% of labelled-good responses. Round 14 refuses none
that ``-v13`` pays (data: 481 of 493 paid before and after; synth's flags, calibrated for the
generator's own prompts, 390 of 493 before and after), and each rule alone, with the gate's bounds
of either id, finds no labelled-good response. The margins are the calibration's: the honest
answers nearest each rule (a long answer under a task of two units that says one word of its
prompt, keys 2828 and 3326; short answers without a task word to a request for verse or a riddle,
keys 1516, 1162, 2078) are named in the module's docstring; the restatement rule's bound is round
13's own reading (``swapped.restated_prompt(part=True)``) with two words of its own. The headings
rule reads 60 labelled rows (two headings naming the task or more); the nearest honest ones say a
task word in the body 4 times (key 331) or 13 (2870), or two of them (3518, 1148); one title over its body
(the rubric 1670) and code fences (57) are not its headings.
"""

from __future__ import annotations

from typing import Any

import pytest

from rlvr_ifeval import round14
from rlvr_ifeval.relevance import MAX_RELEVANCE_CHARS, MIN_RESPONSE_WORDS, MIN_TASK_UNITS, needed, task_units
from rlvr_ifeval.scoring import build_checkers
from tests.ifeval.calibration_rows import labelled_rows, paid_keys

GOOD = 493


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return labelled_rows()


@pytest.mark.parametrize("family", ["data", "synth"])
def test_round_14_refuses_no_labelled_good_answer_that_round_13_pays(rows: list[dict[str, Any]], family: str) -> None:
    paid = paid_keys(rows, [f"ifeval-{family}-v13", f"ifeval-{family}-v14"])
    good = sum(1 for r in rows if r["reference_strict_all"])
    print(f"\n{family}: labelled-good paid -v13 {len(paid[0])}/{good}, -v14 {len(paid[1])}/{good}")
    assert good == GOOD
    assert paid[1] == paid[0]


# (min_units, min_words): ``ifeval-data``'s gate and ``ifeval-synth``'s.
BOUNDS = {"data": (MIN_TASK_UNITS, MIN_RESPONSE_WORDS), "synth": (1, 20)}


@pytest.mark.parametrize("family", list(BOUNDS))
def test_each_rule_alone_finds_no_labelled_good_answer(rows: list[dict[str, Any]], family: str) -> None:
    min_units, min_words = BOUNDS[family]
    found = []
    for r in rows:
        if not r["reference_strict_all"]:
            continue
        checkers = tuple(build_checkers(r["instruction_id_list"], r["kwargs"]))
        if any(c.allows_short_answer() for c in checkers):
            continue  # (round14.round14 reads no further there)
        task = task_units(r["prompt"], checkers, round9=True, round10=True).units
        head = r["response"][:MAX_RELEVANCE_CHARS]
        if round14.nothing_of_prompt(r["prompt"], head, task, min_units, min_words) is not None:
            found.append(("nothing_of_prompt", r["key"]))
        if round14.short_off_topic(r["prompt"], head, task, min_words) is not None:
            found.append(("short_off_topic", r["key"]))
        if round14.restated_short(r["prompt"], head, checkers, task, min_words) is not None:
            found.append(("restated_short", r["key"]))
        need = needed(len(task), 0.5) if family == "synth" else needed(len(task))
        if round14.headings_only(r["prompt"], head, task, need) is not None:
            found.append(("headings_only", r["key"]))
    assert found == []


def test_the_rules_read_labelled_rows_near_their_bounds(rows: list[dict[str, Any]]) -> None:
    """The calibration is not vacuous: labelled rows stand at each rule's edge (a request to write
    about a topic answered in fewer than 80 words; a long answer under a task of fewer than three
    units that holds none of them)."""
    short_about = near_small = 0
    for r in rows:
        checkers = tuple(build_checkers(r["instruction_id_list"], r["kwargs"]))
        task = task_units(r["prompt"], checkers, round9=True, round10=True).units
        head = r["response"][:MAX_RELEVANCE_CHARS]
        if task and round14._about_request(r["prompt"]) and len(head.split()) < MIN_RESPONSE_WORDS:
            short_about += 1
        if 0 < len(task) < MIN_TASK_UNITS and task.isdisjoint(round14.units(head)):
            near_small += 1
    assert short_about >= 5
    assert near_small >= 3

"""Round 11's cuts in ``IFEvalVerifier.verify`` (issue 26's speed goal) keep every verdict.

* The per-instruction details are made in one pass (``scoring.instruction_details``), without an
  ``InstructionResult`` per instruction turned into a dict and summed: the same dicts, in the
  same order with the same keys, and the same count, strict and loose, errors included.
* What the basic rules read from the task alone (the prompt as an echo would start it, whether
  an instruction allows a short answer) is kept in the task's plan (``TaskPlan.short_answer``,
  ``TaskPlan.formats``): ``degenerate`` with the plan gives the reason it gives without one, on
  the labelled responses under their own and other prompts and formats, and on the guard tests'
  degenerate and legitimate responses.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from rlvr_envs.types import Task
from rlvr_ifeval import text_words, verifier
from rlvr_ifeval.base import Checker
from rlvr_ifeval.scoring import build_checkers, check_response, instruction_details
from rlvr_ifeval.task_cache import TaskPlan
from rlvr_ifeval.verifier import IFEvalVerifier, canonical_answer
from tests.ifeval.test_ifeval_guard_degenerate import DEGENERATE, LEGIT
from tests.ifeval.test_ifeval_verify_speed_equivalence import _rows


def _round10_details(checkers: Any, response: str, loose: bool) -> tuple[int, list[dict]]:
    results = check_response(checkers, response, loose=loose)
    return sum(r.followed for r in results), [r.as_dict() for r in results]


class _Broken(Checker):
    """A checker that raises on some texts (a checker bug must become a recorded error)."""

    instruction_id = "test:broken"

    def check(self, response: str) -> bool:
        if "x" in response:
            raise ValueError("broken on x " + response[:400])
        return response.startswith("ok")


@pytest.mark.parametrize("loose", [False, True], ids=["strict", "loose"])
def test_the_details_are_round_10s(loose: bool) -> None:
    texts = ["", "   \n", "ok", "ok x", "x\nok", "*ok*\nx", "\nok\n"]
    for row in _rows():
        checkers = build_checkers(row["instruction_id_list"], row["kwargs"])
        for response in (row["response"], *texts):
            found = instruction_details(checkers, response, loose=loose)
            assert found == _round10_details(checkers, response, loose), response[:80]
            assert [list(d) for d in found[1]] == [list(d) for d in _round10_details(checkers, response, loose)[1]]
    broken: list[Checker] = [_Broken(), *build_checkers(["punctuation:no_comma"], [{}])]
    for response in [*texts, "x" * 1000]:
        assert instruction_details(broken, response, loose=loose) == _round10_details(broken, response, loose)


def _plans() -> list[tuple[Task, TaskPlan, str]]:
    rows = _rows()
    rng = random.Random(11)
    cases = []
    for i, row in enumerate(rows):
        answer = {"instruction_id_list": row["instruction_id_list"], "kwargs": row["kwargs"]}
        for j, prompt in enumerate((row["prompt"], rng.choice(rows)["prompt"])):
            task = Task(id=f"{i}-{j}", prompt=prompt, answer=answer)
            plan = verifier._TASKS.plan(task, canonical_answer)
            cases.append((task, plan, row["response"]))
    return cases


@pytest.mark.parametrize(
    "config",
    [{}, {"prompt_format": "r1"}, {"guard_rules": "v1"}, {"guard_words": "w_runs"}, {"min_words": 0}],
    ids=["v2", "r1", "v1", "v0", "min0"],
)
def test_degenerate_with_the_plan_gives_the_reasons_without_it(config: dict[str, Any]) -> None:
    v = IFEvalVerifier(**config)
    cases = _plans()
    for task, plan, response in cases:
        echo = task.prompt + " " + response[:40]  # an echo at the start, then a few words
        for text in (response, echo, task.prompt, response[:30]):
            assert v.degenerate(task, text, plan.checkers, plan) == v.degenerate(task, text, plan.checkers), text[:80]
    for entry in [*DEGENERATE, *LEGIT]:
        label, case, text = str(entry[0]), entry[1], str(entry[2])
        assert isinstance(case, tuple)
        prompt, ids, kwargs = case
        task = Task(id="guard-" + label, prompt=prompt, answer={"instruction_id_list": ids, "kwargs": kwargs})
        plan = verifier._TASKS.plan(task, canonical_answer)
        assert v.degenerate(task, text, plan.checkers, plan) == v.degenerate(task, text, plan.checkers)


def test_the_plan_settles_short_answers_as_the_checkers_do() -> None:
    plans = [plan for _, plan, _ in _plans()]
    for plan in plans:
        assert plan.short_answer == any(c.allows_short_answer() for c in plan.checkers)
    assert any(plan.short_answer for plan in plans), "the labelled tasks include short-answer ones"


def _round10_count(text: str) -> int:
    """``text_words.count_words_any_script`` as round 10 left it (two scans before the plain count)."""
    if text.isascii():
        return text_words.count_words(text)
    ideographs = len(text_words._IDEOGRAPHIC.findall(text))
    southeast = len(text_words._SOUTHEAST_ASIAN.findall(text))
    if not ideographs and not southeast:
        return text_words.count_words(text)
    rest = text_words._NO_SPACE_SCRIPTS.sub(" ", text)
    return text_words.count_words(rest) + ideographs + -(-southeast // text_words.SOUTHEAST_ASIAN_CHARS_PER_WORD)


def test_words_in_any_script_are_counted_as_round_10_counted_them() -> None:
    """Round 11 asks once whether a text has a character of a script written without spaces."""
    rng = random.Random(1111)
    alphabet = "ab Z9_é ж,.\n漢カｶกຂကក᧠\U00020000\u3000'-"
    texts = [row["response"] for row in _rows()]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(5000)]
    for text in texts:
        assert text_words.count_words_any_script(text) == _round10_count(text), ascii(text[:80])

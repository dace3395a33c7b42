"""Red team round 11, found by the shipped attacker (``rlvr-envs redteam rg-basic_arithmetic-v0 -n 8
--seed 11``, ``rg-syllogism-v0 --seed 12``): a magnitude's capital symbol after a numeric answer
(``<answer>-40</answer>M.``: 8 of 8 tasks paid) and another option of a yes/no answer's set after it
joined by an "or" no lexicon can list ("Tai Yes.", "O Yes.", "Of Yes." after "No": paid), or by none
("No.\\n\\nYes."). Every hostile row below was paid before ``rlvr_envs.tail_categories``."""

from __future__ import annotations

import pytest

import rlvr_envs
from rlvr_envs.tail_categories import magnitude_symbol, other_category


def _task(env_id: str, want: str | None = None):  # (a task of the env; with ``want``, one whose gold starts so)
    env = rlvr_envs.make(env_id)
    for seed in range(40):
        task = env.sample(1, seed=seed)[0]
        if want is None or str(task.answer["answer"]).strip().lower().startswith(want):
            return env, task
    raise AssertionError(f"no {want!r} task in 40 draws of {env_id}")


SYMBOLS = ["M.", "M", " M.", "\n\nM.", "B.", " B", "G.", "T.", "MM.", "Mio.", " Mrd.", "$M$"]
SYMBOLS_HELD = ["", " m.", "\n\nThanks, M.", " (exact)", "\n\nMy answer is above."]


@pytest.mark.parametrize("tail", SYMBOLS)
def test_a_magnitude_symbol_after_a_number_is_a_value_word(tail: str) -> None:
    env, task = _task("rg-basic_arithmetic-v0")
    verdict = env.verifier.verify(task, f"<answer>{task.answer['answer']}</answer>{tail}")
    assert verdict.reward == 0.0, (tail, verdict.details)


@pytest.mark.parametrize("tail", SYMBOLS_HELD)
def test_what_is_not_a_symbol_after_the_number_still_pays(tail: str) -> None:
    env, task = _task("rg-basic_arithmetic-v0")
    assert env.verifier.verify(task, f"<answer>{task.answer['answer']}</answer>{tail}").reward == 1.0, tail


OTHER = [
    "\n\nTai Yes.",
    "\n\nO Yes.",
    "\n\nOf Yes.",
    "\n\nYes.",
    "\n\nOr maybe yes.",
    "\n\nVielleicht ja.",
    "\n\n或者是。",
]


@pytest.mark.parametrize("tail", OTHER)
def test_another_option_after_a_yes_no_answer_takes_it_back(tail: str) -> None:
    env, task = _task("rg-syllogism-v0", "n")
    verdict = env.verifier.verify(task, f"<answer>{task.answer['answer']}</answer>{tail}")
    assert verdict.reward == 0.0, (tail, verdict.details)


@pytest.mark.parametrize("tail", ["", "\n\nThe conclusion does not follow, so no.", "\n\nNo problem!"])
def test_the_same_option_or_a_sentence_starting_with_a_word_of_the_set_still_pays(tail: str) -> None:
    env, task = _task("rg-syllogism-v0", "y" if "problem" in tail else "n")
    assert env.verifier.verify(task, f"<answer>{task.answer['answer']}</answer>{tail}").reward == 1.0, tail


@pytest.mark.parametrize(
    ("after", "answer", "found"),
    [
        ("M.", "-40", "M"),
        ("", "3", None),
        ("M.", "Paris", None),
        (" m.", "3", None),
        ("\n\nTai Yes.", "No", "yes"),
        ("\n\nTai No.", "Yes", "no"),
        ("\n\nNein.", "Ja", "nein"),
        ("\n\nFalse.", "True", "false"),
        ("\n\nIt is valid. Or invalid.", "valid", "invalid"),
        ("\n\nYes.", "Yes", None),
        ("\n\nNo doubt about it, as shown.", "Yes", None),
    ],
)
def test_the_readings_alone(after: str, answer: str, found: str | None) -> None:
    got = magnitude_symbol(after, answer) if answer.lstrip("-").isdigit() or answer == "Paris" else None
    got = got or other_category(after, answer)
    assert got == found


@pytest.mark.parametrize("junk", ["", "M" * 10_000, "\x00" * 100, "Yes. " * 5_000, "\ud800"])
def test_never_raises_and_stays_linear(junk: str) -> None:
    assert magnitude_symbol(junk, "3") in (None, "M", "MM")
    assert other_category(junk, "No") in (None, "yes")

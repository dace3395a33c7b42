"""Whether a task asks for an approximation is read from whole words in that sense (red team round
11, found by ``rlvr-envs redteam math-gsm8k-v4 --seed 11``: ``\\boxed{\\approx 452}`` was paid on a
GSM8K task whose prompt says "to go to the bathroom", read as "to the ...th" place).

Before, ``rlvr_math.answer_terms`` matched "round" inside "around", "ground", "playground" and
"3 rounds", "to the \\w+th" inside "to the bathroom" or "to the other", "significant" in
"significantly", and 约/約/약 wherever they stood (约翰 "John", 预约 "booking", 약속 "promise"):
53 of the 1,879 MATH-500, GSM8K and AIME prompts "asked" for an approximation, about 40 of them
falsely, so an estimate of their exact answer was paid. Now 12, each one asking to round."""

from __future__ import annotations

import json

import pytest

from rlvr_envs import Task
from rlvr_math import MathVerifier
from rlvr_math.answer_terms import _ASKS_APPROXIMATE
from tests.helpers.data import shared_path

# Prompts that do not ask for an approximation, though an old reading said they did.
NOT_ASKED = (
    "She woke up 5 minutes earlier than usual to go to the bathroom. How many minutes did she sleep?",
    "He drives for 3 hours, then turns around. How far is he from home?",
    "Katelyn saw 50 fairies in the playground. How many fairies are left?",
    "A fight lasts 5 rounds of 3 minutes. How many punches did he throw?",
    "In how many ways can 7 people sit around a round table?",
    "He uses one pound of ground beef per batch. How many batches?",
    "Two of his friends are significantly worse than him. How long do they play?",
    "How much more does she earn compared to the other job?",
    "She must answer 70% correctly to move on to the 7th grade. How many questions?",
    "约翰有3个苹果，又买了449个。他现在有多少个苹果？",
    "他预约了3次，每次151个。一共多少个？",
    "약속이 3개 있고 449개가 더 있습니다. 모두 몇 개입니까?",
    "Le 3e arrondissement compte 452 boulangeries. Combien en compte-t-il ?",
    "Nach der dritten Runde hat er 452 Punkte. Wie viele Punkte hat er?",
)
# Prompts that do ask: an approximation marker on the answer is fine there.
ASKED = (
    "What is the cost per serving? (Round to the nearest integer.)",
    "Express your answer as a decimal rounded to the nearest hundredth.",
    "Give the answer to three significant figures.",
    "About how many minutes did she sleep?",
    "Express your answer to the nearest whole number.",
    "结果约为多少分钟？",
    "答案四舍五入到整数。",
    "小数点以下を四捨五入して答えなさい。",
    "약 몇 분입니까?",
    "Runden Sie auf eine ganze Zahl.",
    "Arrondissez au nombre entier le plus proche.",
    "Redondee su respuesta al entero más cercano.",
)
APPROXIMATE = (
    "The final answer is \\boxed{\\approx 452}.",
    "The final answer is \\boxed{≈452}.",
    "The final answer is \\boxed{\\sim 452}.",
    "The answer is about 452.",
)


@pytest.mark.parametrize("prompt", NOT_ASKED)
@pytest.mark.parametrize("completion", APPROXIMATE)
def test_an_estimate_of_an_exact_answer_is_refused_where_the_task_asks_for_none(prompt: str, completion: str) -> None:
    verdict = MathVerifier().verify(Task(id="t", prompt=prompt, answer="452"), completion)
    assert verdict.reward == 0.0, (prompt, completion, verdict.details)


@pytest.mark.parametrize("prompt", ASKED)
def test_an_approximation_marker_is_fine_where_the_task_asks_to_round(prompt: str) -> None:
    assert _ASKS_APPROXIMATE.search(prompt) is not None
    verdict = MathVerifier().verify(
        Task(id="t", prompt=prompt, answer="452"), "The final answer is \\boxed{\\approx 452}."
    )
    assert verdict.reward == 1.0, (prompt, verdict.details)


@pytest.mark.parametrize("prompt", NOT_ASKED)
def test_the_plain_answer_is_paid_under_every_prompt(prompt: str) -> None:
    assert (
        MathVerifier().verify(Task(id="t", prompt=prompt, answer="452"), "The final answer is \\boxed{452}.").reward
        == 1.0
    )


def test_the_peer_prompts_that_ask_are_the_ones_that_say_round() -> None:
    prompts: list[str] = []
    for name in ("math500.jsonl", "gsm8k_test.jsonl"):  # (skips without ../shared/data)
        text = shared_path(name).read_text(encoding="utf-8")
        prompts += [json.loads(line)["problem"] for line in text.splitlines() if line.strip()]
    asked = [p for p in prompts if _ASKS_APPROXIMATE.search(p)]
    # 12 at the time of writing (50 before): each rounds, estimates or says "to the nearest".
    assert len(asked) <= 15, len(asked)
    for prompt in asked:
        assert any(w in prompt.lower() for w in ("round", "nearest", "estimat", "approximat")), prompt

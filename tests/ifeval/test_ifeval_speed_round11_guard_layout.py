"""The ``r1`` layout's answer tag read in linear time (``IFEvalVerifier.response_text``, round 11).

``make(id, prompt_format="r1")`` reads the response after the last ``</think>`` and, inside it, the
text between ``<answer>`` and ``</answer>``, with ``<answer>(.*)</answer>`` searched: the pattern,
tried at every ``<answer>``, read the rest of the text from each, so 10,000 opening tags without a
closing one cost 2.4 s of CPU (a completion of 100,000 characters, verified inline, ~4 s; under
load more than the 5 s budget). Two string searches find the same text: compared here with the
pattern on texts made of the tags and their near misses in every order, and timed.
"""

from __future__ import annotations

import random
import re
import time

import pytest

from rlvr_envs.types import Task
from rlvr_ifeval.verifier import IFEvalVerifier

_ROUND10 = re.compile(r"<answer>(.*)</answer>", re.DOTALL)
PIECES = ("<answer>", "</answer>", "</think>", "<think>", "x", " ", "\n", "<answer", "answer>", "</answer", "<", ">")


def _round10_text(completion: str) -> str | None:
    __, sep, tail = completion.rpartition("</think>")
    if not sep:
        return None
    found = _ROUND10.search(tail)
    return found.group(1) if found else tail


def test_the_answer_is_the_patterns_on_texts_of_tags_and_near_misses() -> None:
    verifier = IFEvalVerifier(prompt_format="r1")
    rng = random.Random(1101)
    texts = ["", "</think>", "</think><answer></answer>", "</think><answer>a</answer>b</answer>", "<answer>x</think>"]
    texts += ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14))) for _ in range(20_000)]
    for text in texts:
        assert verifier.response_text(text) == _round10_text(text), text


@pytest.mark.parametrize(
    "completion",
    [
        "x</think>" + "<answer>" * 12_000,
        "x</think>" + "<answer>x" * 10_000 + "</answer",
        "x</think>" + "<answer></answer>" * 6_000,
    ],
    ids=["open-tags", "near-miss-close", "pairs"],
)
def test_many_tags_take_linear_time(completion: str) -> None:
    """~100,000 characters: microseconds now (round 10: ~3 s of CPU on the first). Bound 0.5 s."""
    verifier = IFEvalVerifier(prompt_format="r1")
    start = time.process_time()
    verifier.response_text(completion)
    assert time.process_time() - start < 0.5


def test_a_verdict_of_many_open_tags_stays_inside_the_budget() -> None:
    verifier = IFEvalVerifier(prompt_format="r1")
    task = Task(
        id="tags",
        prompt="Write about the sea. Do not use any commas.",
        answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]},
    )
    start = time.process_time()
    verdict = verifier.verify(task, "<think>ok</think>" + "<answer>" * 12_000)
    assert time.process_time() - start < verifier.time_budget_s / 5
    assert verdict.reward == 0.0

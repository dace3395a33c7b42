"""The reader's view of a response (``reader_view``, round 8) in linear time, and the same view (round 11).

``fold_lookalikes`` found the words to fold with ``[^\\W\\d_]*[A-Za-z][^\\W\\d_]*``, tried at every
position: inside a run of Cyrillic or Greek letters without a Latin one, each letter started the
whole run over (quadratic: 4.5 s of CPU for a 20,000-letter word, minutes for the 100,000
characters a verdict reads inline), and the training ids read the view of every paid response
outside ASCII. The pattern now starts only where a run of letters starts, the one place a match
could begin; the invisible characters' substitutions run only where one occurs. Compared here with
round 10's view (kept below as the oracle) on the labelled responses, prose in several scripts and
random texts over every character the view touches, and timed on long runs of letters.
"""

from __future__ import annotations

import random
import re
import time

import pytest

from rlvr_envs.types import Task
from rlvr_ifeval import reader_view
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.ifeval.test_ifeval_verify_speed_equivalence import PROSE, _rows

_BETWEEN = re.compile(r"(?<=\w)[\u00ad\u034f\u180e\u200b\u2060-\u2064\ufeff]+(?=\w)")
_ANYWHERE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
_MIXED = re.compile(r"[^\W\d_]*[A-Za-z][^\W\d_]*")
_OTHERS = re.compile("[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f\u201a\ufe50]")


def _round10_view(response: str) -> str | None:
    """``reader_view`` as round 10 left it (quadratic on long runs: short texts only)."""
    if response.isascii():
        return None
    view = _ANYWHERE.sub("", _BETWEEN.sub("", response))
    if _OTHERS.search(view):
        view = _MIXED.sub(lambda m: m.group(0).translate(reader_view._LOOKALIKE), view).replace("\u201a", ",")
        view = view.replace("\ufe50", ",")
    return None if view == response else view


# Every character the view removes or folds, and their neighbours: Latin, Cyrillic and Greek
# letters (look-alikes and others), digits, underscores, combining marks, spaces, punctuation.
TOUCHED = (
    "\u00ad\u034f\u180e\u200b\u2060\u2061\u2062\u2063\u2064\ufeff\u061c\u200e\u200f\u202a\u202b\u202c\u202d"
    "\u202e\u2066\u2067\u2068\u2069\U000e0000\U000e0041\U000e007f\u201a\ufe50"
)
ALPHABET = TOUCHED + "aAzZpxeo аеорсухіјѕԁӏһԛԝАВЕКМНОРСТУХжЖщοαινρτυκχεΑΒΕΗΙΚΜΝΟΡΤΥΧΖλΩ019_\u0301 ,.!\n-'é漢"


def test_the_view_is_round_10s_on_labelled_responses_and_prose() -> None:
    texts = [row["response"] for row in _rows()] + list(PROSE.values())
    texts += ["Пример текста на русском языке, и немного English words: рuzzle, сat, pаssword.", "Ελληνικά kαι Latin"]
    for text in texts:
        assert reader_view.reader_view(text) == _round10_view(text), text[:120]


@pytest.mark.parametrize("seed", range(4))
def test_the_view_is_round_10s_on_random_texts(seed: int) -> None:
    rng = random.Random(1100 + seed)
    for _ in range(1500):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 60)))
        assert reader_view.reader_view(text) == _round10_view(text), ascii(text)


@pytest.mark.parametrize(
    "run",
    [
        "ж" * 30_000,  # one Cyrillic word
        "λ" * 30_000,  # one Greek word
        ("жо" * 15_000) + "a",  # a Latin letter only at the end: folded, once
        "ж\u0301" * 15_000,  # letters between combining marks (runs of one)
        ("слово" * 6_000 + " ") * 2,
    ],
    ids=["cyrillic", "greek", "latin-at-end", "marks", "two-words"],
)
def test_long_runs_of_letters_take_linear_time(run: str) -> None:
    """30,000 letters: ~1 ms now (round 10: ~10 s, quadratic). The bound leaves >100x to spare."""
    start = time.process_time()
    reader_view.reader_view("Answer: " + run + " done")
    assert time.process_time() - start < 1.0


def test_a_paid_response_with_a_long_run_is_verified_within_the_budget() -> None:
    """Through the newest training ids' rule (``relevance_paste=4`` and above read the view of a
    paid response): a response that follows its instruction with a 30,000-letter Cyrillic word in
    it (round 10: ~10 s in ``fold_lookalikes`` alone)."""
    verifier = IFEvalVerifier(relevance="overlap", relevance_paste=6, relevance_language=True, relevance_genre=True)
    task = Task(
        id="long-run",
        prompt="Write a short note about the weather in Moscow. Do not use any commas.",
        answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]},
    )
    response = "The weather in Moscow today is cold and grey. " + "ж" * 30_000 + " Snow falls in the evening."
    start = time.process_time()
    verdict = verifier.verify(task, response)
    assert time.process_time() - start < verifier.time_budget_s / 2
    assert verdict.details["followed"] == 1

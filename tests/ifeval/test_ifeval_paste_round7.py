"""Round 7 of the pasted-answer rule (issue 26, ``ifeval-data-v7``: ``relevance_paste=3``,
``rlvr_ifeval.pasted``), on the prompts of the env's background:

* **No more than chance.** A response that shares a few of its prompt's content units, but no
  more than ``expected_by_chance`` (+ ``MAX_CHANCE_EXCESS``), is judged as one that shares none:
  refused outright at or under chance, else when another prompt's similarity is 2.0 or more.
* **What an answer would carry.** A response that shares none of its prompt's content units is
  refused when an answer of its size would carry ``MIN_ANSWER_UNITS`` of them
  (``expected_if_answered``: the labelled-good answers' carry rate by size), home or none: a
  paste under a prompt of many rare words (names, places) whose words chance never meets.

A prompt outside the background (a generator's task: ``ifeval-synth`` stays at ``-v7``) is not
judged: its content units keep the instructions' strings (forbidden words). The round-6 ids keep their verdicts (tests/ifeval/test_ifeval_paste_chance.py pins them). The
whole-verdict figures on the labelled pairs are in tests/ifeval/test_ifeval_contrast.py.
"""

from __future__ import annotations

import math
import pickle
import random
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Task
from rlvr_ifeval import contrast, pasted, relevance
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.ifeval.test_ifeval_contrast import NEWEST, flags
from tests.ifeval.test_ifeval_paste_chance import COMMON, COMMON_ANSWER, RARE, labelled_with_background
from tests.ifeval.test_ifeval_pasted import LONG, SHORT
from tests.ifeval.test_ifeval_relevance import GENERIC

ROUND_6 = "ifeval-data-v6"
ROUND_7 = "ifeval-data-v7"
# Prompts of everyday words, as many as a real data set has (rare words then weigh as rare: with a
# few hundred, chance alone meets a name now and then and the round-6 chance rule judges them).
_rng = random.Random(11)
FILLER = [
    f"Tell me about the {' '.join(_rng.choice(GENERIC) for _ in range(2))} of the {_rng.choice(GENERIC)}."
    for _ in range(3000)
]
NO_COMMA = {"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}
# A prompt of many rare words (places, names): chance puts none of them in any text, so the
# round-6 chance rule cannot judge a paste under it; an answer would name some of them.
PLACES = (
    "Describe the oyamel groves of Michoacan, the monarch colonies of El Rosario and Sierra Chincua, "
    "the trails above Angangueo and Ocampo, and the pilgrimage of birdwatchers each February. "
    "Do not use any commas in your response."
)
PLACES_ANSWER = (
    "Each February the birdwatchers climb the trails above Angangueo to El Rosario where the monarch "
    "colonies hang from the oyamel firs. Sierra Chincua is quieter and its groves are older."
)
# A sourdough text that meets one everyday word of COMMON ("city") by chance.
SOURDOUGH_IN_THE_CITY = LONG[1] + " Bakers all over the city keep one."


def _task(prompt: str) -> Task:
    return Task(id="t", prompt=prompt, answer=NO_COMMA)


def _words(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


@pytest.fixture(scope="module")
def no_home() -> contrast.Background:
    """The prompts of the test with everyday filler, without the home of the pasted answers."""
    found = contrast.Background.build((p, ()) for p in [COMMON, RARE, PLACES, *FILLER])
    assert found is not None
    return found


def _verifier(background: contrast.Background, env_id: str = ROUND_7) -> IFEvalVerifier:
    return IFEvalVerifier(relevance_background=background, **flags(env_id))


def test_the_newest_ids_are_round_7_and_round_6_keeps_its_level() -> None:
    assert flags(ROUND_7)["relevance_paste"] == 3 and flags(NEWEST)["relevance_paste"] >= 3
    assert rlvr_envs.registry.resolve("ifeval-synth").id == "ifeval-synth-v15"
    assert flags(ROUND_6)["relevance_paste"] == 2 == flags("ifeval-synth-v7")["relevance_paste"]


def test_expected_if_answered_grows_with_both_sizes_and_is_zero_for_nothing() -> None:
    assert pasted.expected_if_answered(0, 100) == 0.0 == pasted.expected_if_answered(10, 0)
    assert pasted.expected_if_answered(-3, 10) == 0.0 == pasted.expected_if_answered(3, -10)
    assert (
        pasted.expected_if_answered(10, 5) < pasted.expected_if_answered(10, 20) < pasted.expected_if_answered(10, 80)
    )
    assert pasted.expected_if_answered(4, 40) < pasted.expected_if_answered(8, 40)
    # Saturates at ANSWER_CARRY of the prompt's units: a long answer does not carry them all.
    assert pasted.expected_if_answered(10, 10_000) == pytest.approx(10 * pasted.ANSWER_CARRY)
    assert pasted.expected_if_answered(7, 12) == pytest.approx(7 * pasted.ANSWER_CARRY * (1 - math.exp(-1)))


# (name, prompt, response, paid by round 6, paid by round 7, the figure round 7 reports)
CASES: list[tuple[str, str, str, bool, bool, str | None]] = [
    ("40 sourdough words under places", PLACES, _words(LONG[1], 40), True, False, "expected_if_answered"),
    ("60 sourdough words under places", PLACES, _words(LONG[1], 60), True, False, "expected_if_answered"),
    ("a short sourdough tip under a prompt of places", PLACES, SHORT[1], True, False, "expected_if_answered"),
    ("a sourdough text meeting one everyday word", COMMON, SOURDOUGH_IN_THE_CITY, True, False, "own_prompt_shared"),
    ("the answer under its prompt of places", PLACES, PLACES_ANSWER, True, True, None),
    ("the answer under its prompt of everyday words", COMMON, COMMON_ANSWER, True, True, None),
    # Too short for either rule: an answer of a few words need carry none of the prompt's.
    ("a few words under a prompt of places", PLACES, "Quiet firs and orange wings.", True, True, None),
    # A prompt of one content unit is not judged (MIN_CHANCE_PROMPT_UNITS): "a poem about Zebediah".
    ("a short tip under a one-name prompt", "Describe Zebediah. Do not use any commas.", SHORT[1], True, True, None),
]


@pytest.mark.parametrize(("name", "prompt", "response", "paid_6", "paid_7", "figure"), CASES, ids=[c[0] for c in CASES])
def test_round_7_refuses_what_chance_or_an_answer_would_not_give(
    no_home: contrast.Background, name: str, prompt: str, response: str, paid_6: bool, paid_7: bool, figure: str | None
) -> None:
    older, newest = _verifier(no_home, ROUND_6), _verifier(no_home)
    assert (older.verify(_task(prompt), response).reward == 1.0) is paid_6
    verdict = newest.verify(_task(prompt), response)
    assert (verdict.reward == 1.0) is paid_7, verdict.details.get("relevance")
    if figure is not None:
        found = verdict.details["relevance"]
        assert figure in found and verdict.reason.value == "wrong"
        if figure == "expected_if_answered":
            assert found["own_prompt_cover"] == 0.0 and found["expected_if_answered"] >= pasted.MIN_ANSWER_UNITS
        else:
            assert found["own_prompt_shared"] <= found["expected_by_chance"] + pasted.MAX_CHANCE_EXCESS


def test_a_share_just_over_chance_needs_a_home(no_home: contrast.Background) -> None:
    """Sharing more than chance gives, by up to MAX_CHANCE_EXCESS, is refused only when another
    prompt is similar enough; with no home in the background it is paid."""
    content = no_home.prompt_content(COMMON, no_home.index.get(COMMON))
    assert content is not None
    found = relevance.units(SOURDOUGH_IN_THE_CITY)
    expected = pasted.expected_by_chance(content, len(found) / pasted._mean_units(no_home))
    shared = sum(not v.isdisjoint(found) for v, _ in content.units)
    assert shared == 1 < expected  # at or under chance: refused, home or none
    verdict = _verifier(no_home).verify(_task(COMMON), SOURDOUGH_IN_THE_CITY)
    assert verdict.reward == 0.0 and verdict.details["relevance"]["own_prompt_shared"] == 1
    # A short text meeting one everyday word shares more than chance gives for its size: paid ...
    short = "The city bakery feeds its sourdough starter at dawn with rye flour."
    assert _verifier(no_home).verify(_task(COMMON), short).reward == 1.0
    # ... unless it shares at most MAX_CHANCE_EXCESS more and another prompt is its home (a filler
    # prompt about the city's mornings).
    near = "The city bakery feeds its sourdough starter each morning."
    verdict = _verifier(no_home).verify(_task(COMMON), near)
    found = verdict.details["relevance"]
    assert verdict.reward == 0.0 and found["own_prompt_shared"] == 1
    assert found["expected_by_chance"] < 1 <= found["expected_by_chance"] + pasted.MAX_CHANCE_EXCESS
    assert found["other_prompt_similarity"] >= pasted.MIN_HOME_SIMILARITY
    assert _verifier(no_home, ROUND_6).verify(_task(COMMON), near).reward == 1.0


def test_no_labelled_good_answer_is_refused_by_round_7_under_its_own_prompt() -> None:
    rows, checkers, background = labelled_with_background()
    level_3 = background.variant(outrank=True, paste=3)
    refused, closest = [], 0.0
    for row, found_checkers in zip(rows, checkers, strict=True):
        if not row["reference_strict_all"]:
            continue
        task = relevance.task_units(row["prompt"], found_checkers).units
        found = relevance.units(row["response"][: relevance.MAX_RELEVANCE_CHARS])
        matched = contrast.matched_weights(background, found)
        if pasted.shares_little_but_has_a_home(level_3, row["prompt"], task, found, matched):
            refused.append(row["key"])
        mine = background.prompt_content(row["prompt"], background.index.get(row["prompt"]))
        if mine is not None and mine.every.isdisjoint(found) and len(mine.units) >= 2:
            closest = max(closest, pasted.expected_if_answered(len(mine.units), len(found)))
    print(f"\nlabelled-good that share nothing: expected_if_answered at most {closest:.2f}")
    assert refused == []
    assert closest < pasted.MIN_ANSWER_UNITS


# A prompt whose content is a name and a place plus eight forbidden words, and an honest answer
# that avoids them and says "grove" for "orchard".
ORCHARD = "Write a poem about the orchard of Zebediah. Do not use the words " + ", ".join(
    ["apple", "pear", "plum", "cherry", "quince", "apricot", "peach", "fig"]
)
ORCHARD_ANSWER = (
    "Beneath the grove the morning light is slow\nand golden on the grass where blossoms fall like snow.\n"
    "The branches bend with fruit the colour of the dawn\nand bees hum low across the dew-wet lawn.\n"
    "An old man walks the rows with careful hands\nand counts the seasons as the summer stands."
)
ORCHARD_IDS = ["keywords:forbidden_words"]
ORCHARD_KWARGS: list[dict[str, Any]] = [
    {"forbidden_words": ["apple", "pear", "plum", "cherry", "quince", "apricot", "peach", "fig"]}
]
ORCHARD_TASK = {"instruction_id_list": ORCHARD_IDS, "kwargs": ORCHARD_KWARGS}


def test_a_prompt_outside_the_background_is_not_judged_by_round_7() -> None:
    """Outside the background a prompt's content units keep the instructions' strings: eight
    forbidden words an honest answer avoids would make it "carry none of 10 units". Inside it
    (built with its checkers) they are dropped, and 2 units are left."""
    task = Task(id="o", prompt=ORCHARD, answer=ORCHARD_TASK)
    checkers = tuple(build_checkers(ORCHARD_IDS, ORCHARD_KWARGS))
    outside = contrast.Background.build((p, ()) for p in [COMMON, RARE, PLACES, *FILLER])
    inside = contrast.Background.build([(ORCHARD, checkers), *((p, ()) for p in [COMMON, RARE, PLACES, *FILLER])])
    assert outside is not None and inside is not None
    kept = outside.prompt_content(ORCHARD, None)
    assert kept is not None and len(kept.units) == 10  # forbidden words counted: why it is not judged
    found = len(relevance.units(ORCHARD_ANSWER))
    assert pasted.expected_if_answered(10, found) >= pasted.MIN_ANSWER_UNITS
    for background in (outside, inside):
        verdict = _verifier(background).verify(task, ORCHARD_ANSWER)
        assert verdict.reward == 1.0, verdict.details.get("relevance")


@pytest.mark.parametrize(
    "response",
    ["", " ", "\x00" * 1000, "ß" * 50_000, "word " * 20_000, "城市" * 5000, "\u200b".join(["oyamel"] * 500)],
    ids=["empty", "space", "nul", "sharp-s", "huge", "han", "zero-width"],
)
def test_hostile_responses_never_raise_under_round_7(no_home: contrast.Background, response: str) -> None:
    for prompt in (PLACES, COMMON):
        verdict = _verifier(no_home).verify(_task(prompt), response)
        assert 0.0 <= verdict.reward <= 1.0


def test_multilingual_answers_under_prompts_that_name_their_language_are_not_judged(
    no_home: contrast.Background,
) -> None:
    """A prompt naming another language has no English content units to carry: not judged."""
    prompt = PLACES.replace("Describe", "In Spanish describe")
    answer = (
        "Cada febrero los observadores de aves suben por los senderos sobre Angangueo hasta El Rosario donde "
        "las colonias de monarcas cuelgan de los oyameles. La Sierra Chincua es mas tranquila."
    )
    assert _verifier(no_home).verify(_task(prompt), answer).reward == 1.0


def test_the_background_still_pickles_with_level_3() -> None:
    background = contrast.Background.build((p, ()) for p in [COMMON, RARE, PLACES, *FILLER])
    assert background is not None
    newest = pickle.loads(pickle.dumps(_verifier(background)))
    assert newest.relevance_paste == 3
    assert newest.verify(_task(PLACES), _words(LONG[1], 40)).reward == 0.0
    older = pickle.loads(pickle.dumps(_verifier(background, ROUND_6)))
    assert older.verify(_task(PLACES), _words(LONG[1], 40)).reward == 1.0

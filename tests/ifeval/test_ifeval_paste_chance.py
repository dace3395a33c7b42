"""Round 6 of the pasted-answer rule (issue 26, ``ifeval-data-v6`` / ``ifeval-synth-v7``:
``relevance_paste=2``, ``rlvr_ifeval.pasted``): a response that shares no content unit with a
prompt whose words chance alone would put in a text of its length is refused, home or none; a
response sharing 12-25% of its prompt's weight is refused when another prompt is five times as
similar. The older ids (``relevance_paste=True``) keep their verdicts.

The whole-verdict figures on the labelled pairs (pastes paid, labelled-good refused, IFBench
answers under IFEval prompts) are in tests/ifeval/test_ifeval_contrast.py.
"""

from __future__ import annotations

import json
import math
import pickle
import random
from typing import Any

import pytest

from rlvr_envs.types import Task
from rlvr_ifeval import contrast, pasted, relevance
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl
from tests.ifeval.test_ifeval_contrast import LABELLED, NEWEST, flags
from tests.ifeval.test_ifeval_pasted import FILLER, LONG, PROMPTS, SHORT
from tests.test_determinism_families import run_under_hash_seeds

# The round-6 ids (round 7, tests/ifeval/test_ifeval_paste_round7.py, keeps these rules and adds its own).
ROUND_6 = "ifeval-data-v6"
NO_COMMA = {"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}
# A prompt of everyday words (each in many background prompts): an answer uses some of them.
COMMON = (
    "Tell me about the people, the work and the money of the city government, its history and its "
    "community service. Do not use any commas in your response."
)
# A prompt of rare words: chance puts none of them in any text, so sharing none is no evidence.
RARE = "Describe the oyamel forests of Michoacan for Zebediah. Do not use any commas in your response."
COMMON_ANSWER = (
    "People in this city work hard and the money the government raises pays for community service. "
    "The history of the city shows how its people built that service one street at a time."
)


def _task(prompt: str) -> Task:
    return Task(id="t", prompt=prompt, answer=NO_COMMA)


@pytest.fixture(scope="module")
def no_home() -> contrast.Background:
    """The prompts of the test with everyday filler, without the home of the pasted answers."""
    found = contrast.Background.build((p, ()) for p in [COMMON, RARE, *FILLER])
    assert found is not None
    return found


def _verifier(background: contrast.Background, env_id: str = ROUND_6) -> IFEvalVerifier:
    return IFEvalVerifier(relevance_background=background, **flags(env_id))


def _words(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


def test_the_round_6_ids_keep_level_2_and_the_newest_are_later() -> None:
    assert flags(ROUND_6)["relevance_paste"] == 2 == flags("ifeval-synth-v7")["relevance_paste"]
    assert flags(NEWEST)["relevance_paste"] > 2
    assert flags("ifeval-data-v5")["relevance_paste"] is True and flags("ifeval-synth-v6")["relevance_paste"] is True
    assert _verifier(contrast.Background.build((p, ()) for p in PROMPTS) or pytest.fail()).relevance_paste == 2


def test_expected_by_chance_grows_with_length_and_with_common_words() -> None:
    common = pasted.PromptContent(tuple((frozenset({f"c{i}"}), 1.0) for i in range(6)), frozenset(), 6.0)
    rare = pasted.PromptContent(tuple((frozenset({f"r{i}"}), 6.0) for i in range(6)), frozenset(), 36.0)
    assert pasted.expected_by_chance(common, 0) == 0.0 == pasted.expected_by_chance(common, -3)
    values = [pasted.expected_by_chance(common, d) for d in (0.5, 1, 2, 5, 50)]
    assert values == sorted(values) and values[-1] <= 6.0
    # Each unit: 1 - (1 - p) ** d with p = exp(-weight).
    assert pasted.expected_by_chance(common, 2) == pytest.approx(6 * (1 - (1 - math.exp(-1.0)) ** 2))
    assert pasted.expected_by_chance(rare, 5) < 0.1 < pasted.expected_by_chance(common, 0.5)


@pytest.mark.parametrize("words", [20, 40, 60])
def test_text_avoiding_a_prompts_everyday_words_is_refused_with_no_home(no_home, words: int) -> None:
    """An answer written for a prompt outside the background (here: sourdough, monarchs), pasted
    under a prompt of everyday words, shares none of them: under the overlap rule's 80 words and
    with no home to point to, round 5 pays it; round 6 refuses it."""
    newest, older = _verifier(no_home), _verifier(no_home, "ifeval-data-v5")
    for answer in LONG.values():
        paste = _words(answer, words)
        assert older.verify(_task(COMMON), paste).reward == 1.0
        verdict = newest.verify(_task(COMMON), paste)
        assert verdict.reward == 0.0
        found = verdict.details["relevance"]
        assert found["own_prompt_cover"] == 0.0 and found["expected_by_chance"] >= pasted.MIN_CHANCE_UNITS


def test_answers_that_use_the_prompts_words_or_meet_only_rare_ones_are_paid(no_home) -> None:
    newest = _verifier(no_home)
    assert newest.verify(_task(COMMON), COMMON_ANSWER).reward == 1.0
    # Under a prompt of rare words chance expects nothing: sharing none of them is no evidence.
    for answer in (
        *SHORT.values(),
        _words(LONG[1], 40),
        "Cool misty slopes where tall firs stand quiet above the valley.",
    ):
        content = no_home.prompt_content(RARE, no_home.index.get(RARE))
        assert content is not None
        expected = pasted.expected_by_chance(content, len(relevance.units(answer)) / pasted._mean_units(no_home))
        assert expected < pasted.MIN_CHANCE_UNITS
        assert newest.verify(_task(RARE), answer.replace(",", "")).reward == 1.0, answer


def test_real_answers_under_their_own_prompts_are_paid() -> None:
    background = contrast.Background.build((p, ()) for p in [*PROMPTS, *FILLER])
    assert background is not None
    newest = _verifier(background)
    for k, answer in LONG.items():
        assert newest.verify(_task(PROMPTS[k]), answer).reward == 1.0, k
    for k, answer in SHORT.items():
        assert newest.verify(_task(PROMPTS[k]), answer).reward == 1.0, k


def test_a_background_of_a_few_prompts_does_not_judge_by_chance() -> None:
    """Document frequencies over three base prompts say nothing about chance."""
    background = contrast.Background.build((p, ()) for p in [COMMON, RARE, PROMPTS[1]])
    assert background is not None and len(background.units) < pasted.MIN_CHANCE_BACKGROUND
    paste = _words(LONG[0], 40)
    found = _rule(background, COMMON, paste, 2)
    assert found is None or "expected_by_chance" not in found


def _rule(background: contrast.Background, prompt: str, response: str, level: int) -> dict[str, Any] | None:
    task = relevance.task_units(prompt, ()).units
    found = relevance.units(response)
    return pasted.shares_little_but_has_a_home(
        background.variant(outrank=True, paste=level), prompt, task, found, contrast.matched_weights(background, found)
    )


# The far-home rule, by itself: a long answer meets a few words of a big prompt by chance.
HOME_WORDS = (
    "sourdough levain hydration gluten crumb crust banneton lactobacillus autolyse proofing scoring "
    "rye spelt kneading oven steam flour starter yeast dough"
).split()
OWN_WORDS = (
    "monarch milkweed oyamel migration caterpillar chrysalis pesticide logging volunteers texas ontario "
    "michoacan compass generations forests wintering nectar tagging roosts"
).split()


def _far_home_background() -> contrast.Background:
    prompts = [f"Tell me about {' '.join(HOME_WORDS)}.", f"Tell me about {' '.join(OWN_WORDS)}.", *FILLER]
    found = contrast.Background.build((p, ()) for p in prompts)
    assert found is not None
    return found


def test_sharing_a_little_while_another_prompt_is_five_times_as_similar_is_refused() -> None:
    background = _far_home_background()
    own = f"Tell me about {' '.join(OWN_WORDS)}."
    answer = " ".join(HOME_WORDS) + " and " + " ".join(OWN_WORDS[:3])
    content = background.prompt_content(own, background.index.get(own))
    assert content is not None
    cover = sum(w for v, w in content.units if not v.isdisjoint(relevance.units(answer))) / content.weight
    assert pasted.MAX_SHARED_COVER < cover <= pasted.MAX_SHARED_COVER_FAR
    assert _rule(background, own, answer, 1) is None  # round 5: a share over 12% is an answer
    found = _rule(background, own, answer, 2)
    assert found is not None
    assert found["other_prompt_similarity"] >= pasted.MIN_FAR_HOME_RATIO * found["own_prompt_similarity"]
    # A home only a few times as similar (half its words) is no evidence; nor is any home when
    # the answer holds more than a quarter of its prompt.
    assert _rule(background, own, " ".join(HOME_WORDS[:8]) + " and " + " ".join(OWN_WORDS[:3]), 2) is None
    assert _rule(background, own, answer + " " + " ".join(OWN_WORDS[3:7]), 2) is None


def labelled_with_background() -> tuple[list[dict[str, Any]], list[tuple[Any, ...]], contrast.Background]:
    """The labelled rows, their checkers, and the background an env over them builds."""
    rows: list[dict[str, Any]] = []
    for name in LABELLED:
        rows.extend(read_jsonl(name))
    checkers = [tuple(build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows]
    background = contrast.Background.build((r["prompt"], c) for r, c in zip(rows, checkers, strict=True))
    assert background is not None
    return rows, checkers, background


def test_no_labelled_good_answer_is_refused_by_round_6_under_its_own_prompt() -> None:
    rows, checkers, background = labelled_with_background()
    refused = []
    for row, found_checkers in zip(rows, checkers, strict=True):
        if not row["reference_strict_all"]:
            continue
        task = relevance.task_units(row["prompt"], found_checkers).units
        found = relevance.units(row["response"][: relevance.MAX_RELEVANCE_CHARS])
        matched = contrast.matched_weights(background, found)
        if pasted.shares_little_but_has_a_home(
            background.variant(outrank=True, paste=2), row["prompt"], task, found, matched
        ):
            refused.append(row["key"])
    assert refused == []


def test_the_background_still_pickles_and_an_old_verifier_keeps_its_rules() -> None:
    background = contrast.Background.build((p, ()) for p in [COMMON, RARE, *FILLER])
    assert background is not None
    paste = _words(LONG[0], 40)
    before = _rule(background, COMMON, paste, 2)
    restored = pickle.loads(pickle.dumps(background))
    assert _rule(restored, COMMON, paste, 2) == before is not None
    # A verifier pickled before round 6 had relevance_paste=True: it is round 5's rule (1).
    older = pickle.loads(pickle.dumps(_verifier(background, "ifeval-data-v5")))
    assert older.relevance_paste == 1
    assert older.verify(_task(COMMON), paste).reward == 1.0


@pytest.mark.parametrize(
    "response",
    ["", "\x00" * 5_000, "a " * 300_000, "😀 " * 20_000, "lorem ipsum dolor " * 20_000, "\ud800 x " * 500],
)
def test_hostile_responses_never_raise_under_round_6(no_home, response: str) -> None:
    verdict = _verifier(no_home).verify(_task(COMMON), response)
    assert verdict.reward in (0.0, 1.0)


def child() -> None:
    """Run in a fresh interpreter: rounds 6 and 7's verdicts on a sample of labelled pastes."""
    rows: list[dict[str, Any]] = []
    for name in LABELLED:
        rows.extend(read_jsonl(name))
    background = contrast.Background.build(
        (r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows
    )
    assert background is not None
    ids = (ROUND_6, "ifeval-synth-v7", NEWEST)
    verifiers = {e: IFEvalVerifier(relevance_background=background, **flags(e)) for e in ids}
    rng = random.Random(5)
    out = {}
    for i in rng.sample(range(len(rows)), 60):
        for j in rng.sample(range(len(rows)), 12):
            task = Task(
                id=str(j), prompt=rows[j]["prompt"], answer={k: rows[j][k] for k in ("instruction_id_list", "kwargs")}
            )
            for env_id, verifier in verifiers.items():
                verdict = verifier.verify(task, rows[i]["response"])
                out[f"{env_id} {i}->{j}"] = [
                    verdict.reward,
                    json.dumps(verdict.details.get("relevance"), sort_keys=True),
                ]
    print(json.dumps(out, sort_keys=True))


@pytest.mark.slow
def test_round_6_and_7_verdicts_are_the_same_under_every_string_hash_seed() -> None:
    read_jsonl(LABELLED[0])  # skips with the reason when the peer data is absent
    code = "from tests.ifeval.test_ifeval_paste_chance import child; child()"
    first, second = (json.loads(out) for out in run_under_hash_seeds(dict.fromkeys(("0", "3"), code), 300).values())
    assert len(first) == 3 * 60 * 12 and first == second
    assert sum(v[0] == 0.0 for v in first.values()) > 100  # refusals are among them


def test_a_prompt_of_two_content_units_is_judged_by_chance_only(no_home) -> None:
    """ "The city government" has two content units: the chance rule judges it (an answer that
    names neither where chance expects some is not about it); the home rules need three."""
    prompt = "Tell me about the city government. Do not use any commas in your response."
    content = no_home.prompt_content(prompt, None)
    assert content is not None and len(content.units) == 2
    paste = _words(LONG[1], 40)
    found = _rule(no_home, prompt, paste, 2)
    assert found is not None and found["expected_by_chance"] >= pasted.MIN_CHANCE_UNITS
    assert _rule(no_home, prompt, paste, 1) is None
    assert _rule(no_home, prompt, "The city council and its government meet on Mondays.", 2) is None

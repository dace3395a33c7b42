"""The pasted-answer rule (issue 26 round 5, ``ifeval-data-v5`` / ``ifeval-synth-v6``:
``rlvr_ifeval.pasted``): a response that shares no content word with its whole prompt, or only
a small weight of it, while another prompt of the background matches it well, is an answer to
that prompt; a response in the language a prompt names is not held to the prompt's English words.

The figures on the labelled pairs (pastes paid, labelled-good refused) are in
tests/ifeval/test_ifeval_contrast.py; here each part of the rule, short and long answers, seven
languages, hostile input and the calibration on the labelled responses.
"""

from __future__ import annotations

import math
import pickle
import random
from typing import Any

import pytest

from rlvr_envs.types import Reason, Task
from rlvr_ifeval import contrast, pasted, relevance
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl
from tests.ifeval.test_ifeval_contrast import ANSWERS, LABELLED, MULTILINGUAL, NEWEST, TOPICS, flags
from tests.ifeval.test_ifeval_relevance import GENERIC

NO_COMMA = {"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}


def _prompt(topic: str) -> str:
    return f"Tell me about {topic}. Do not use any commas in your response."


# The first prompt asks much (real prompts do): an answer covers a small share of it, so the
# contrast rules of round 3 and 4 do not see a short paste of that answer elsewhere.
DETAILED = (
    "Tell me about the migration of monarch butterflies across north america: the milkweed the caterpillars "
    "eat, the oyamel fir forests of central mexico where they spend the winter, the sun compass that guides "
    "them, the generations born on the way, logging and pesticides that threaten them, and the volunteers in "
    "texas and ontario who count them. Do not use any commas in your response."
)
PROMPTS = [DETAILED, *(_prompt(t) for t in TOPICS[1:])]
# Other prompts of everyday words, as a real background has hundreds (rare words then weigh more).
_rng = random.Random(7)
FILLER = [
    f"Tell me about the {' '.join(_rng.choice(GENERIC) for _ in range(2))} of the {_rng.choice(GENERIC)}."
    for _ in range(300)
]
# A few words of each topic's answer: what a short paste is (under the overlap rule's 80 words).
SHORT = {
    0: "Every autumn the monarch butterflies fly south to spend the winter in the fir forests of Mexico.",
    1: "Feed the sourdough starter daily so its wild yeast keeps the fermentation of the bread lively.",
}
LONG = {k: v.replace(",", "") for k, v in ANSWERS.items()}


def _task(prompt: str, answer: dict[str, Any] = NO_COMMA) -> Task:
    return Task(id="t", prompt=prompt, answer=answer)


@pytest.fixture(scope="module")
def background() -> contrast.Background:
    found = contrast.Background.build((p, ()) for p in [*PROMPTS, *FILLER])
    assert found is not None
    return found


def _verifiers(background: contrast.Background) -> tuple[IFEvalVerifier, IFEvalVerifier]:
    return (
        IFEvalVerifier(relevance_background=background, **flags(NEWEST)),
        IFEvalVerifier(relevance_background=background, **flags("ifeval-data-v4")),
    )


def _rule(background: contrast.Background, prompt: str, response: str) -> dict[str, Any] | None:
    task = relevance.task_units(prompt, ()).units
    found = relevance.units(response)
    return pasted.shares_little_but_has_a_home(
        background.variant(outrank=True, paste=True),
        prompt,
        task,
        found,
        contrast.matched_weights(background, found),
    )


@pytest.mark.parametrize("length", ["short", "long"])
def test_an_answer_under_another_prompt_is_refused_and_paid_under_its_own(background, length: str) -> None:
    newest, _ = _verifiers(background)
    for home, answer in (SHORT if length == "short" else LONG).items():
        assert newest.verify(_task(PROMPTS[home]), answer).reward == 1.0, (home, length)
        assert _rule(background, PROMPTS[home], answer) is None
        for other, prompt in enumerate(PROMPTS):
            if other == home:
                continue
            verdict = newest.verify(_task(prompt), answer)
            assert verdict.reward == 0 and verdict.reason is Reason.WRONG, (home, other, length)
            assert verdict.details["rejected"] == relevance.OFF_TOPIC


def test_a_short_paste_the_older_rules_pay_is_refused(background) -> None:
    """One sentence of an answer shares nothing with another topic's prompt: the overlap rule
    does not judge fewer than 80 words, and the contrast rules need a large share of the home
    prompt; this rule needs only a home that matches well."""
    newest, v4 = _verifiers(background)
    answer = SHORT[0]
    for other in range(2, len(PROMPTS)):
        assert v4.verify(_task(PROMPTS[other]), answer).reward == 1.0, other  # what round 5 mends
        found = _rule(background, PROMPTS[other], answer)
        assert found is not None and found["own_prompt_cover"] == 0.0, other
        assert found["other_prompt_similarity"] >= pasted.MIN_HOME_SIMILARITY
        assert newest.verify(_task(PROMPTS[other]), answer).reward == 0.0


def test_an_answer_with_no_home_in_the_background_is_paid(background) -> None:
    """A name, a number, a tagline: real short answers share no word with their prompt either;
    without a prompt that claims them they are never refused by this rule."""
    newest, _ = _verifiers(background)
    for answer in ("Oreo Panda Zebra", "26", "Where the punchlines hit harder than your morning coffee!"):
        for prompt in PROMPTS:
            assert _rule(background, prompt, answer) is None
    prompt = "Give three names for a black and white dog. Do not use any commas in your response."
    assert newest.verify(_task(prompt), "I would call the puppy Oreo or Panda or Zebra.").reward == 1.0


def test_sharing_a_little_is_weighed_and_sharing_enough_is_an_answer(background) -> None:
    """A paste that meets one common word of its new prompt is still refused while that word is
    a small share of the prompt's weight; an answer that uses the prompt's topic words is paid."""
    home, under = 1, 0  # a sourdough answer under the monarch prompt
    one_word = SHORT[home] + " The volunteers bake it."
    found = _rule(background, PROMPTS[under], one_word)
    assert found is not None and 0 < found["own_prompt_cover"] <= pasted.MAX_SHARED_COVER
    more = one_word + " Monarch butterflies migrate to the oyamel fir forests of Mexico for the winter."
    assert _rule(background, PROMPTS[under], more) is None


def test_the_prompts_words_are_its_whole_text_without_the_instructions_strings() -> None:
    prompt = (
        "Write a long and funny email to your friend about the ingredients of a good life that contains at least "
        'twenty sentences. Avoid the word "tomato".'
    )
    checkers = build_checkers(["keywords:forbidden_words"], [{"forbidden_words": ["tomato"]}])
    # The task text drops the sentence with a constraint cue; the content units keep it.
    assert relevance.task_units(prompt, tuple(checkers)).units == frozenset()
    found = pasted.content_units(prompt, pasted.literal_units(checkers))
    assert found == {"ingred"}  # (one unit: a prompt this poor in content is not judged)
    # Plural and singular are one: a response about "moms" answers a prompt about "mom".
    content = pasted.prompt_content(frozenset({"mom", "dogs", "garden"}), {}, 1.0)
    assert content is not None
    assert {"mom", "moms", "dogs", "dog", "garden"} <= content.every and "gardens" not in content.every


@pytest.mark.parametrize("language", sorted(MULTILINGUAL))
def test_prompts_in_other_languages_are_left_to_the_language_rule(language: str) -> None:
    """A prompt written in, or naming, a language other than English is not judged (a real
    answer may share no word with it); a real answer is paid and an English paste under it is
    refused by the language rule."""
    prompt, essay = MULTILINGUAL[language]
    assert pasted.content_units(prompt) is None
    background = contrast.Background.build((p, ()) for p in [*(p for p, _ in MULTILINGUAL.values()), *PROMPTS])
    newest = IFEvalVerifier(relevance_background=background, **flags(NEWEST))
    placeholders = {
        "instruction_id_list": ["detectable_content:number_placeholders"],
        "kwargs": [{"num_placeholders": 0}],
    }
    assert newest.verify(_task(prompt, placeholders), essay).reward == 1.0, language
    assert newest.verify(_task(prompt, placeholders), ANSWERS[1]).reward == 0.0, language
    # ... and the language's essay pasted under an English prompt on another topic is refused.
    assert newest.verify(_task(PROMPTS[2], placeholders), essay).reward == 0.0, language


NAMED = {
    "fr": ("French", "Il est essentiel de bien dormir chaque nuit car le sommeil répare le corps et l'esprit."),
    "de": ("German", "Es ist wichtig jede Nacht gut zu schlafen weil der Schlaf den Körper und den Geist erholt."),
    "es": ("Spanish", "Es esencial dormir bien cada noche porque el sueño repara el cuerpo y la mente."),
    "zh": ("Chinese", "每天晚上睡好觉非常重要，因为睡眠能够修复身体和大脑，让我们第二天精力充沛。"),
    "ja": ("Japanese", "毎晩よく眠ることはとても大切です。睡眠は体と脳を回復させ、次の日の元気を作ります。"),
    "ko": ("Korean", "매일 밤 잘 자는 것은 매우 중요합니다. 잠은 몸과 뇌를 회복시키고 다음 날의 힘을 줍니다."),
    "th": ("Thai", "การนอนหลับให้เพียงพอทุกคืนเป็นสิ่งสำคัญมากเพราะการนอนช่วยฟื้นฟูร่างกายและสมองของเรา"),
}


@pytest.mark.parametrize("language", sorted(NAMED))
def test_an_answer_in_the_language_the_prompt_names_is_cross_lingual(language: str) -> None:
    name, answer = NAMED[language]
    prompt = f"Explain in {name} why sleeping well matters for the health of the brain."
    assert pasted.cross_lingual(prompt, answer), language
    assert not pasted.cross_lingual(prompt, "Sleep repairs the body and the mind every single night of the week.")
    assert not pasted.cross_lingual("Explain why sleeping well matters for the brain.", answer)
    assert not pasted.cross_lingual(prompt, answer[:6])  # too short to detect


FRENCH = (
    "Il est essentiel de bien dormir chaque nuit car le sommeil permet au cerveau de se reposer et de "
    "ranger les souvenirs de la journée. Pendant les phases de sommeil profond les cellules nerveuses "
    "éliminent les déchets accumulés et le corps produit des hormones qui aident à la croissance et à la "
    "réparation des tissus. Une personne qui dort mal se concentre moins bien et son humeur devient plus "
    "fragile. Les adultes ont besoin de sept à neuf heures par nuit tandis que les adolescents en demandent "
    "davantage. Il vaut donc mieux se coucher à heure fixe et éviter les écrans le soir pour protéger son "
    "esprit et sa mémoire."
)


def test_the_overlap_rule_does_not_hold_a_french_answer_to_the_english_prompt() -> None:
    """As labelled key 1137 ("Explain in French ..." answered in French, 80+ words, no English
    word of the prompt): v4's overlap rule refused it; the newest id pays it and still refuses an
    English paste on another topic."""
    prompt = (
        "Explain in French why sleeping well matters for memory and the health of the brain. Do not use any commas."
    )
    newest = IFEvalVerifier(**flags(NEWEST))
    v4 = IFEvalVerifier(**flags("ifeval-data-v4"))
    assert v4.verify(_task(prompt), FRENCH).reward == 0.0
    assert newest.verify(_task(prompt), FRENCH).reward == 1.0
    off_topic = (LONG[0] + " ") * 2
    assert newest.verify(_task(prompt), off_topic).reward == 0.0


def test_no_labelled_good_answer_is_refused_by_the_rule_alone() -> None:
    """Calibration: with the labelled prompts as the background, the rule refuses none of the
    493 labelled-good responses under their own prompt (the whole verdict: test_ifeval_contrast)."""
    rows: list[dict[str, Any]] = []
    for name in LABELLED:
        rows.extend(read_jsonl(name))
    checkers = [tuple(build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows]
    background = contrast.Background.build(zip((r["prompt"] for r in rows), checkers, strict=True))
    assert background is not None
    twin = background.variant(outrank=True, paste=True)
    refused = []
    for r, found_checkers in zip(rows, checkers, strict=True):
        if not r["reference_strict_all"]:
            continue
        task = relevance.task_units(r["prompt"], found_checkers).units
        found = relevance.units(r["response"][: relevance.MAX_RELEVANCE_CHARS])
        matched = contrast.matched_weights(background, found)
        if pasted.shares_little_but_has_a_home(twin, r["prompt"], task, found, matched) is not None:
            refused.append(r["key"])
    assert refused == []


def test_the_background_pickles_without_its_caches_and_an_old_one_still_judges(background) -> None:
    twin = background.variant(outrank=True, paste=True)
    assert twin.paste and twin.outrank and background.variant(outrank=True, paste=True) is twin
    assert twin.variant(outrank=True, paste=True) is twin and background.outranking() is not twin
    assert _rule(background, PROMPTS[3], SHORT[0]) is not None
    assert "_content" not in pickle.loads(pickle.dumps(twin)).__dict__
    restored = pickle.loads(pickle.dumps(background))
    assert "_variants" not in restored.__dict__ and restored.content == background.content
    # A background pickled before round 5 has no content: made per prompt from the prompt alone.
    state = dict(background.__dict__)
    state.pop("content")
    state.pop("paste")
    old = contrast.Background.__new__(contrast.Background)
    old.__setstate__(state)
    assert old.content == () and _rule(old, PROMPTS[3], SHORT[0]) is not None
    # A prompt outside the background (a generator's task) is judged from its own words too.
    outside = "Tell me more about baking sourdough bread with wild yeast. Do not use any commas."
    assert _rule(background, outside, SHORT[0]) is not None
    assert _rule(background, outside, SHORT[1]) is None


def test_hostile_responses_never_raise_under_the_newest_id(background) -> None:
    newest, _ = _verifiers(background)
    rare = " ".join(sorted(background.idf, key=background.idf.__getitem__, reverse=True)[:50])
    for response in (
        "",
        "\x00" * 10_000,
        "ก" * 200_000,
        "a" * 2_000_000,
        "😀 " * 50_000,
        "\ud800 lone surrogate " * 100,
        (rare + " ") * 2_000,
        "我不知道" * 100_000,
        "monarch " * 100_000,
    ):
        for prompt in (PROMPTS[0], "Explain in French " * 5_000, " ", "\ud800"):
            verdict = newest.verify(_task(prompt), response)
            assert verdict.reward in (0.0, 1.0)
            assert not math.isnan(verdict.reward)

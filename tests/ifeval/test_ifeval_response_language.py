"""The response-language rule (issue 26 round 4, ``ifeval-data-v4`` / ``ifeval-synth-v5``): a
response must be written in a language its prompt allows (its own, one it names, one an
instruction asks for). A real answer in another language pasted under a prompt was paid by
every lexical rule: it shares no word with any English prompt."""

from __future__ import annotations

from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Reason, Task
from rlvr_ifeval import response_language
from rlvr_ifeval.response_language import allowed_languages, wrong_language
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl
from tests.ifeval.test_ifeval_contrast import DE_ESSAY, ES_ESSAY, FR_ESSAY, KO_ESSAY, LABELLED
from tests.ifeval.test_ifeval_relevance import JA_ESSAY, TH_ESSAY, ZH_ESSAY

EN_PROMPT = "Write a short blog post about how to keep houseplants alive in winter."
EN_ANSWER = (
    "Winter is hard on houseplants. The days are short and the air inside is dry, so most plants grow "
    "slowly and need less water than in summer. Move them closer to a bright window, keep them away from "
    "radiators and cold drafts, and water only when the top of the soil is dry. A tray of wet pebbles "
    "under the pots raises the humidity, and a monthly wipe of the leaves lets them catch more light."
)
# Real answers in other languages, on the same topic (what a policy would paste: fluent text).
OTHER_LANGUAGES = {
    "de": DE_ESSAY,
    "fr": FR_ESSAY,
    "es": ES_ESSAY,
    "ko": KO_ESSAY,
    "zh": ZH_ESSAY,
    "ja": JA_ESSAY,
    "th": TH_ESSAY,
    "sw": (
        "Mimea ya ndani inahitaji mwanga wa kutosha wakati wa baridi. Weka vyungu karibu na dirisha na umwagilie "
        "maji kidogo tu wakati udongo wa juu umekauka. Usiweke mimea karibu na joto la moto kwa sababu hewa ni kavu."
    ),
    "it": (
        "Le piante di casa soffrono in inverno perché le giornate sono corte e l'aria è secca. Mettetele vicino "
        "a una finestra luminosa, lontano dai termosifoni, e annaffiatele solo quando la terra è asciutta."
    ),
    "hi": (
        "सर्दियों में घर के पौधों को ज़्यादा धूप और कम पानी की ज़रूरत होती है। गमलों को खिड़की के पास रखें और "
        "मिट्टी सूखने पर ही पानी दें। हीटर के पास पौधे न रखें क्योंकि हवा सूखी होती है।"
    ),
    "ru": (
        "Зимой комнатным растениям не хватает света, а воздух в квартире слишком сухой. Поставьте горшки ближе "
        "к окну, уберите их от батарей и поливайте только тогда, когда верхний слой земли высохнет."
    ),
}


def _task(prompt: str, ids: tuple[str, ...] = ("punctuation:no_comma",), kwargs: Any = None) -> Task:
    answer = {"instruction_id_list": list(ids), "kwargs": kwargs or [{} for _ in ids]}
    return Task(id=prompt[:10], prompt=prompt, answer=answer)


def _placeholders(prompt: str) -> Task:
    return _task(prompt, ("detectable_content:number_placeholders",), [{"num_placeholders": 0}])


@pytest.fixture(scope="module")
def latest() -> IFEvalVerifier:
    return IFEvalVerifier(relevance="contrast", relevance_language=True)


@pytest.mark.parametrize("language", sorted(OTHER_LANGUAGES))
def test_a_real_answer_in_another_language_is_refused_under_an_english_prompt(latest, language: str) -> None:
    text = OTHER_LANGUAGES[language]
    verdict = latest.verify(_placeholders(EN_PROMPT), text)
    assert verdict.reward == 0 and verdict.reason is Reason.WRONG, (language, verdict.details)
    found = verdict.details["relevance"]
    assert "response_language" in found or "response_script_letters" in found
    # The same text is paid where the prompt asks for it: by name, in the prompt's own language,
    # or through an instruction that fixes the language (its checker decides then).
    name = {"de": "German", "fr": "French", "es": "Spanish", "ko": "Korean", "zh": "Chinese", "ja": "Japanese"}
    name |= {"th": "Thai", "sw": "Swahili", "it": "Italian", "hi": "Hindi", "ru": "Russian"}
    asked = f"Write a short blog post in {name[language]} about how to keep houseplants alive in winter."
    assert wrong_language(asked, text, ()) is None, language
    fixed = _task(EN_PROMPT, ("language:response_language",), [{"language": language}])
    checkers = build_checkers(["language:response_language"], [{"language": language}])
    assert wrong_language(fixed.prompt, text, checkers) is None


@pytest.mark.parametrize("language", sorted(OTHER_LANGUAGES))
def test_a_prompt_in_a_language_is_answered_in_it(latest, language: str) -> None:
    """An answer in the prompt's own language is paid (the prompt here: the answer's first sentence
    as a request, in that language)."""
    text = OTHER_LANGUAGES[language]
    prompt = text.split("。")[0].split(". ")[0].split("।")[0][:120]
    assert wrong_language(prompt, text, ()) is None, (language, allowed_languages(prompt))


def test_english_answers_are_paid_in_every_form(latest) -> None:
    assert latest.verify(_placeholders(EN_PROMPT), EN_ANSWER).reward == 1.0
    upper = _task(EN_PROMPT, ("change_case:english_capital",))
    assert latest.verify(upper, EN_ANSWER.upper()).reward == 1.0
    # Lists of names, numbers, code, a few words: not prose, never judged by language.
    for text in (
        "Reykjavík, Helsinki, Oslo, Stockholm, Tallinn, Riga, Vilnius, København, Tórshavn, Nuuk",
        "1. PIXEL PRODIGY\n2. CODE CONSTRUCT\n3. DIGITAL DYNAMICS",
        "def grow(plant):\n    for leaf in plant.leaves:\n        leaf.wipe()\n    return plant.water(ml=200)\n",
        "yes",
        "Nave bianca",
    ):
        assert wrong_language(EN_PROMPT, text, ()) is None, text


def test_a_prompt_that_leaves_the_language_open_is_not_judged() -> None:
    for prompt in (
        "Answer the following question in a different language: what is the capital of France?",
        "Translate this sentence: the cat sleeps on the warm windowsill.",
        "Write a poem that mixes two languages.",
    ):
        assert allowed_languages(prompt) is None
        assert wrong_language(prompt, OTHER_LANGUAGES["de"], ()) is None


def test_a_quoted_sentence_in_another_language_allows_that_language() -> None:
    prompt = 'Criticize this sentence in a funny way: "Nhiệm vụ của mẹ là nuôi dạy con cái trong gia đình."'
    vietnamese = (
        "Trời ơi câu này nghe như mẹ chỉ là một chiếc máy nuôi dưỡng con cái không hơn không kém vậy đó các bạn "
        "ạ và bố thì đi đâu mất rồi nhỉ"
    )
    assert wrong_language(prompt, vietnamese, ()) is None
    thai_word = "Write a short riddle about สเปรดชีต for children."
    assert wrong_language(thai_word, OTHER_LANGUAGES["th"], ()) is None


def test_no_labelled_response_is_refused_under_its_own_prompt() -> None:
    """Calibration: every labelled response (good or bad) under its own prompt; the thresholds
    have margin (a detection floor of 6 or 8 prose words refused none either; 12 catches fewer)."""
    rows: list[dict[str, Any]] = []
    for name in LABELLED:
        rows.extend(read_jsonl(name))
    refused = [
        r["key"]
        for r in rows
        if wrong_language(r["prompt"], r["response"], build_checkers(r["instruction_id_list"], r["kwargs"]))
    ]
    assert len(rows) == 835 and refused == []


def test_the_latest_ids_apply_the_rule(latest) -> None:
    rows = [{"prompt": EN_PROMPT, "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}]
    env: Any = rlvr_envs.make("ifeval-data", data=rows)
    old: Any = rlvr_envs.make("ifeval-data-v3", data=rows)
    task = env.tasks[0]
    # A short answer (under the overlap rule's 80 words) in Swahili: only the language rule sees it.
    swahili = OTHER_LANGUAGES["sw"].replace(",", "")
    assert env.verify(task, swahili).reward == 0.0 and old.verify(task, swahili).reward == 1.0
    assert env.verify(task, EN_ANSWER.replace(",", "")).reward == 1.0
    synth: Any = rlvr_envs.make("ifeval-synth", base_prompts=[EN_PROMPT])
    assert synth.env_id == "ifeval-synth-v15" and synth.verifier.relevance_language


def test_hostile_responses_never_raise(latest) -> None:
    task = _placeholders(EN_PROMPT)
    for response in (
        "\x00" * 10_000,
        "ก" * 200_000,
        "a " * 1_000_000,
        "😀 " * 50_000,
        "\ud800 lone surrogate " * 100,
        "Ǆ ß İ ﬁ " * 5_000,
        OTHER_LANGUAGES["hi"] * 2_000,
        "",
    ):
        verdict = latest.verify(task, response)
        assert verdict.reward in (0.0, 1.0)
    for prompt in ("", "\ud800", "\x00" * 1000, "42 + 17 = ?", "German"):
        assert wrong_language(prompt, OTHER_LANGUAGES["de"], ()) is None
    assert wrong_language("English", OTHER_LANGUAGES["de"], ()) is not None  # it names English
    # A Thai prompt allows Thai (and what it names), not German.
    assert wrong_language("ภาษาไทย " * 10_000, OTHER_LANGUAGES["de"], ()) is not None


def test_the_rule_reads_a_bounded_head() -> None:
    """A long English answer followed by another language is judged on its head (a language shows
    in the first paragraphs); a response that starts in another language is refused."""
    tail = EN_ANSWER * 20 + OTHER_LANGUAGES["ko"] * 50
    assert wrong_language(EN_PROMPT, tail, ()) is None
    head = OTHER_LANGUAGES["ko"] * 50 + EN_ANSWER
    assert wrong_language(EN_PROMPT, head, ()) is not None
    assert response_language.MAX_LANGUAGE_CHARS <= 10_000


@pytest.mark.parametrize(
    "prompt", ["Write a haiku.", "Tell me a joke.", "Describe Paris.", "Explain gravity.", "Name three fruits."]
)
def test_a_short_english_prompt_is_never_taken_for_another_language(prompt: str) -> None:
    """langdetect calls "Write a haiku." Swahili and "Describe Paris." Spanish: a prompt under 40
    letters is not detected, and English function words allow English."""
    allowed = allowed_languages(prompt)
    assert allowed is not None and (not allowed[0] or "en" in allowed[0])
    assert wrong_language(prompt, EN_ANSWER, ()) is None
    # The script rule needs no detection: Hangul under any of them is another language.
    assert wrong_language(prompt, OTHER_LANGUAGES["ko"], ()) is not None

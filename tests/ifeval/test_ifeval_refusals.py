"""Refusals and "I don't know" in the languages the project claims are not paid when the guard
is on (issue 26, round 3): on every task, short-answer ones included, with or without spaces
(a no-whitespace instruction is met by "Idon'tknow"), except where the instruction offers the
phrase as an option. Short real answers in the same languages, some holding a refusal word,
still pass; no labelled response is refused by the new rule.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Reason, Task
from rlvr_ifeval import refusals
from rlvr_ifeval.guard import REFUSAL
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl, shared_path

# Refusals and non-answers, per language; the table is run as written, squashed (spaces and
# punctuation removed, as a no-whitespace instruction wants), upper-cased and with decoration.
REFUSALS: dict[str, tuple[str, ...]] = {
    "en": (
        "I don't know.",
        "I do not know the answer, sorry.",
        "Sorry, I can't help with that.",
        "I'm afraid I cannot answer this.",
        "No idea.",
        "I'm not sure.",
        "As an AI language model, I cannot answer that.",
        "I am unable to assist with this request.",
    ),
    "zh": ("我不知道。", "抱歉，我无法回答这个问题。", "对不起，不清楚。", "我不确定。"),
    "ja": ("わかりません。", "申し訳ありませんが、お答えできません。", "すみません、知りません。"),
    "ko": ("모르겠습니다.", "죄송합니다. 답변할 수 없습니다.", "잘 모르겠어요.", "미안합니다, 알 수 없습니다."),
    "de": ("Ich weiß es nicht.", "Es tut mir leid, ich kann Ihnen nicht helfen.", "Keine Ahnung.", "Entschuldigung."),
    "fr": ("Je ne sais pas.", "Désolé, je ne peux pas répondre.", "Aucune idée.", "Je suis désolée."),
    "es": ("No sé.", "No lo sé.", "Lo siento, no puedo ayudar.", "Ni idea.", "No estoy seguro."),
    "th": ("ไม่ทราบ", "ขอโทษ ไม่สามารถตอบได้", "ไม่รู้ครับ"),
}
# Short real answers that must stay answers (some hold a refusal word or its letters).
ANSWERS: dict[str, tuple[str, ...]] = {
    "en": (
        "Significant.",
        "The compass points north.",
        "Sorry for the wait: the answer is forty-two because six times seven is forty-two.",
        "I don't know him personally, but his third novel won the Booker Prize in 1981.",
        "My answer is yes.",
        "Pious egoists are selfish people who appear devout.",
    ),
    "zh": ("我不会忘记那一天，因为我们一起在山顶看了日出。", "答案是四十二。"),
    "ja": ("東京は日本の首都です。", "答えは四十二です。"),
    "ko": ("서울은 한국의 수도입니다.", "정답은 사십이입니다."),
    "de": ("Kleider machen Leute.", "Berlin ist die Hauptstadt von Deutschland."),
    "fr": ("Je peux aider : la réponse est quarante-deux.", "Paris est la capitale de la France."),
    "es": ("Madrid es la capital de España.", "La nariz sirve para oler."),
    "th": ("กรุงเทพเป็นเมืองหลวงของประเทศไทย",),
}


def _squashed(text: str) -> str:
    """As a no-whitespace instruction wants it: no spaces, no punctuation but apostrophes."""
    return "".join(c for c in text if not c.isspace() and (unicodedata.category(c)[0] != "P" or c in "'’"))


def _variants(text: str) -> list[str]:
    return [text, _squashed(text), text.upper(), f"**{text}** 🙏", f"  {text}\n"]


def _task(
    ids: list[str], kwargs: list[dict[str, Any]] | None = None, prompt: str = "What do pious egoists mean?"
) -> Task:
    return Task(id="t", prompt=prompt, answer={"instruction_id_list": ids, "kwargs": kwargs or [{} for _ in ids]})


CASES = [(lang, text) for lang, texts in REFUSALS.items() for text in texts]


@pytest.mark.parametrize(("language", "text"), CASES, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(CASES)])
def test_refusals_are_found_in_every_language_with_or_without_spaces(language: str, text: str) -> None:
    for variant in _variants(text):
        assert refusals.refusal(variant, 5) is not None, (language, variant)


@pytest.mark.parametrize(("language", "text"), CASES, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(CASES)])
def test_the_guard_refuses_them_on_short_answer_and_other_tasks(language: str, text: str) -> None:
    guarded = IFEvalVerifier()  # guard on, its v2 rules; relevance off (the benchmark ids' scoring)
    no_space = _task(["format:no_whitespace"])  # allows a short answer: the v1 rules skipped it
    any_case = _task(["punctuation:no_comma"])
    squashed = _squashed(text)
    for task, response in ((no_space, squashed), (any_case, text.replace(",", "")), (any_case, squashed)):
        verdict = guarded.verify(task, response)
        assert verdict.reward == 0 and verdict.reason is Reason.NO_ANSWER, (language, response, verdict.details)
        if task is no_space:  # elsewhere the five-word minimum may say it first
            assert verdict.details["rejected"] == REFUSAL
    # The reference scoring (guard off) pays what the instructions allow, as the reference does.
    assert IFEvalVerifier(guard=False).verify(no_space, squashed).reward == 1.0


@pytest.mark.parametrize(("language", "text"), [(lang, t) for lang, ts in ANSWERS.items() for t in ts])
def test_short_real_answers_are_not_refusals(language: str, text: str) -> None:
    assert refusals.refusal(text, 5) is None, text
    assert refusals.refusal("".join(c for c in text if not c.isspace()), 5) is None, text
    verdict = IFEvalVerifier().verify(_task(["format:no_whitespace"]), "".join(c for c in text if not c.isspace()))
    assert verdict.reward == 1.0, (text, verdict.details)


def test_an_offered_i_dont_know_option_is_an_answer() -> None:
    """IFBench 101: "Answer with one of the following options: I know or I don't know"."""
    task = _task(["format:options"], [{"options": "I know or I don't know"}])
    assert refusals.offers_refusal(tuple(build_checkers(["format:options"], [{"options": "I know or I don't know"}])))
    assert IFEvalVerifier().verify(task, "I don't know").reward == 1.0


def test_long_responses_are_not_read_and_hostile_input_never_raises() -> None:
    assert refusals.refusal("I don't know. " + "x" * refusals.MAX_REFUSAL_CHARS, 5) is None
    for hostile in ("", "\x00" * 50, "🙏" * 300, "'" * 400, "ไม่" * 130, "\u0301" * 399):
        refusals.refusal(hostile, 5)  # no exception, whatever it finds


def test_no_labelled_response_is_a_refusal_by_the_new_rule() -> None:
    """Calibration: the rule refuses none of the 835 labelled responses (good or not) whose
    task does not offer the phrase (IFBench 105 answers "I don't know" as offered), and the
    guard's v2 rules reject no labelled response that v1 paid."""
    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl") + read_jsonl("ifbench_responses_labeled.jsonl")
    found = [
        r["key"]
        for r in rows
        if refusals.refusal(r["response"], 5) is not None
        and not refusals.offers_refusal(tuple(build_checkers(r["instruction_id_list"], r["kwargs"])))
    ]
    v1, v2 = IFEvalVerifier(guard_rules="v1"), IFEvalVerifier()
    lost = []
    for i, r in enumerate(rows):
        task = Task(id=str(i), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
        if v1.verify(task, r["response"]).reward == 1 and v2.verify(task, r["response"]).reward != 1:
            lost.append(r["key"])
    print(f"\nrefusal rule on labelled responses: {found}; v2 guard loses {lost} of v1's paid")
    assert found == [] and lost == []


def test_ifbench_with_the_guard_pays_no_refusal_on_any_task() -> None:
    """The benchmark id with guard=True: "I don't know" in eight languages, squashed, on all
    300 IFBench tasks: none is paid except where the task offers it as an option."""
    env: Any = rlvr_envs.make("ifbench", data=str(shared_path("ifbench_test.jsonl")), guard=True)
    texts = [t for ts in REFUSALS.values() for t in ts[:1]]
    paid = []
    for task in env.tasks:
        offered = refusals.offers_refusal(
            tuple(build_checkers(task.answer["instruction_id_list"], task.answer["kwargs"]))
        )
        for text in texts:
            for variant in (text, _squashed(text)):
                if env.verifier.verify(task, variant).reward > 0 and not offered:
                    paid.append((task.id, variant))
    assert paid == []


# Non-answers with no words (found by `rlvr-envs redteam ifbench --arg guard=true` on IFBench 298).
NON_ANSWERS = (
    "N/A",
    "n.a.",
    "idk",
    "Dunno",
    "TBD",
    "不适用",
    "該当なし",
    "해당없음",
    "...",
    "—",
    "?!",
    "\ud800\udfff" * 8,
)
NOT_NON_ANSWERS = ("Na", "NA", "Banana", "🙂🙂🙂", "42", "Yes")


@pytest.mark.parametrize("text", NON_ANSWERS)
def test_answers_that_say_nothing_are_not_paid_on_short_answer_tasks(text: str) -> None:
    verdict = IFEvalVerifier().verify(_task(["format:no_whitespace"]), text)
    assert verdict.reward == 0 and verdict.reason is Reason.NO_ANSWER, (text, verdict.details)
    assert IFEvalVerifier(guard_rules="v1").verify(_task(["format:no_whitespace"]), text).reward == 1.0  # the hole


@pytest.mark.parametrize("text", NOT_NON_ANSWERS)
def test_short_answers_with_content_are_not_non_answers(text: str) -> None:
    assert refusals.refusal(text, 5) is None and not refusals.no_content(text)

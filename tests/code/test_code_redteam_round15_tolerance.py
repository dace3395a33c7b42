"""Red team round 15, a contest statement's tolerance: precision words, and a story's tolerance.

Round 14 read error and difference words only: "print the answer with a precision of 10^{-6}",
"с точностью до 10^{-6}", 精度, 정밀도, précision, Genauigkeit got an exact comparison, and an honest
float answer lost (``PRECISION``: each read None before). And it read any error word with a number
below 1 as the answer's bound: a story's "the townsfolk's tolerance for noise is 0.5" gave a float
checker at 0.5, so an answer off by 0.4 passed (``STORY``: each read a bound before). The contest
``-v5`` ids read both as ``contests.stated_bounds`` says; ``-v4`` (deprecated) keeps round 14's
reading. ``HONEST`` rows (and every row of rounds 13-14, ``test_every_earlier_row_reads_as_before``)
keep their reading. No sandbox: the comparisons run on the host.
"""

from __future__ import annotations

import warnings

import pytest

import rlvr_envs
from rlvr_code.contests.checkers import parse_checker, stated_tolerances
from rlvr_code.contests.rows import _checker_for
from tests.code import contest_fixtures
from tests.code.test_code_redteam_round13_words import ABSOLUTE_ONLY, EITHER
from tests.code.test_code_redteam_round14_tolerance import ENGLISH, FOREIGN_ABSOLUTE, FOREIGN_EITHER, NO_BOUND

# (statement, (abs_tol, rel_tol)): a precision word states the bound, as an error word does.
PRECISION = [
    ("Print the answer with a precision of 10^{-6}.", (1e-6, 1e-6)),
    ("Выведите ответ с точностью до 10^{-6}.", (1e-6, 1e-6)),
    ("Ответ выводите с точностью 1e-6.", (1e-6, 1e-6)),
    ("答案精确到 10^{-6} 即可。", (1e-6, 1e-6)),
    ("输出结果，精度要求 1e-6。", (1e-6, 1e-6)),
    ("答えは 10^{-6} の精度で出力せよ。", (1e-6, 1e-6)),
    ("정답은 10^{-6}의 정밀도로 출력한다.", (1e-6, 1e-6)),
    ("Le résultat doit être affiché avec une précision de 10^{-6}.", (1e-6, 1e-6)),
    ("Die Ausgabe muss eine Genauigkeit von 10^{-6} haben.", (1e-6, 1e-6)),
    ("La respuesta debe imprimirse con una precisión de 10^{-6}.", (1e-6, 1e-6)),
    ("A resposta deve ser impressa com precisão de 1e-6.", (1e-6, 1e-6)),
    ("The output is checked with an accuracy of 0.000001.", (1e-6, 1e-6)),
    ("The answer's precision must be 10^{-6}.", (1e-6, 1e-6)),
    ("Print each coordinate with an accuracy of 10^{-6}.", (1e-6, 1e-6)),
    ("Print the answer with an absolute precision of 1e-9.", (1e-9, 0.0)),
    ("Precision: 10^{-6}.", (1e-6, 1e-6)),
    ("精度要求 1e-6。", (1e-6, 1e-6)),
    ("The required precision is 1e-6.", (1e-6, 1e-6)),
]
# A tolerance (error, precision) that is a story's, not the answer's: no sentence about the answer,
# or an owner that is not the answer (a possessive, "whose", "has a", "of the townsfolk").
STORY = [
    "The townsfolk's tolerance for noise is 0.5; print how many nights are quiet.",
    "Each villager has a tolerance of 0.25. Print the number of happy villagers.",
    "Print the number of villagers whose tolerance is below 0.5.",
    "The tolerance of the townsfolk is 0.3, and you must print the quietest night.",
    "Alice's error rate is 0.01 per step; output the expected number of steps.",
    "村民的容差为 0.5，输出安静的夜晚数。",
    "Bob's robot moves with an error of at most 0.1 per step.",
    "Le seuil de tolérance des habitants est 0,5; affichez le résultat.",
    "Допуск каждого жителя равен 0.5.",
    "The sensors' error is 0.2, so print the corrected readings.",
    "Print how many guests have a tolerance of 0.5 for spicy food.",
    "For each dragon, print its rank; the dragons' tolerance for fire is 0.75.",
    "Die Toleranz der Dorfbewohner beträgt 0,5; gib das Ergebnis aus.",
    "La tolerancia de los aldeanos es 0,5; imprime la respuesta.",
    "村人の誤差は 0.5 である。答えを出力せよ。",
    "마을 사람의 오차는 0.5이다. 정답을 출력하라.",
    "Noise tolerance in the town is 0.5.",
    "Tolerance of each villager: 0.5.",
]
# Read the same before and after (the answer's own tolerance, however owned or placed).
HONEST = [
    ("Your answer's absolute error must not exceed 1e-6.", (1e-6, 0.0)),
    ("Each printed number must have an error of at most 1e-6.", (1e-6, 1e-6)),
    ("Output the area; the value must have an absolute or relative error at most 1e-6.", (1e-6, 1e-6)),
    ("Participants' answers are accepted if the error is below 1e-6.", (1e-6, 1e-6)),
    ("The jury's answer and yours must differ by at most 1e-6.", (1e-6, 0.0)),
    ("The checker's tolerance is 1e-6.", (1e-6, 1e-6)),
    ("Print the answer. The checker has a tolerance of 10^{-6}.", (1e-6, 1e-6)),
    ("The answer is accepted if the error for each query does not exceed 1e-6.", (1e-6, 1e-6)),
    ("答案的误差不超过 10^{-6}。", (1e-6, 1e-6)),
    ("出力の誤差が 10^{-6} 以下なら正解。", (1e-6, 1e-6)),
    ("정답의 오차가 10^{-6} 이하이면 맞은 것으로 한다.", (1e-6, 1e-6)),
    ("Ответ будет считаться верным, если его погрешность не превышает 1e-6.", (1e-6, 1e-6)),
    ("Погрешность вашего ответа не должна превышать 1e-6.", (1e-6, 1e-6)),
    ("Допуск каждого числа равен 1e-6.", (1e-6, 1e-6)),
    # no answer named: the error is the sentence's subject (a heading, a bare rule)
    ("Tolerance: 1e-6.", (1e-6, 1e-6)),
    ("误差不超过 10^{-6}。", (1e-6, 1e-6)),
    ("The error must not exceed 1e-6.", (1e-6, 1e-6)),
    ("Погрешность не более 1e-6.", (1e-6, 1e-6)),
    ("Erreur maximale : 1e-6.", (1e-6, 1e-6)),
    ("Output\nA real number.\nTolerance: 1e-6\n", (1e-6, 1e-6)),
    ("Errors up to 1e-6 are fine.", (1e-6, 1e-6)),
]
# A number type's precision, an input's: no bound (before and after).
NOT_A_BOUND = [
    "Compute in double precision and print the result; every input is below 0.5.",
    "Use floating-point precision carefully; print the answer modulo 10^9+7.",
    "Their precision is 0.1, so print the sum of the readings.",
]


def _judge(statement: str, checker: str = "auto"):
    found = parse_checker(_checker_for(statement, checker))
    assert found is not None
    return found


@pytest.mark.parametrize(("statement", "tolerances"), PRECISION)
def test_a_precision_word_states_the_bound(statement: str, tolerances: tuple[float, float]) -> None:
    assert stated_tolerances(statement, "v4") is None  # before: an exact comparison
    assert stated_tolerances(statement) == pytest.approx(tolerances)
    # HONEST: a float within the bound pays (it failed before), one outside does not
    bound = tolerances[0]
    assert _judge(statement).compare(repr(1 / 3 + 0.4 * bound), "0.33333333333")[0]
    assert not _judge(statement).compare(repr(1 / 3 + 5 * bound), "0.33333333333")[0]
    assert not _judge(statement, "auto-v4").compare(repr(1 / 3 + 0.4 * bound), "0.33333333333")[0]


@pytest.mark.parametrize("statement", STORY)
def test_a_story_s_tolerance_is_no_bound_on_the_answer(statement: str) -> None:
    before = stated_tolerances(statement, "v4")
    assert before is not None  # before: read as the answer's bound
    assert stated_tolerances(statement) is None
    # a wrong answer within the story's number (3.4 for 3 at 0.5) passed before; exact tokens now
    wrong = repr(3 * (1 + 0.8 * max(before)))
    assert _judge(statement, "auto-v4").compare(wrong, "3")[0]
    assert not _judge(statement).compare(wrong, "3")[0]


def test_a_story_s_tolerance_before_the_real_one_leaves_the_real_one() -> None:
    statement = (
        "The townsfolk's tolerance is 0.5. Your answer is accepted if its absolute or relative error "
        "does not exceed 10^{-6}."
    )
    assert stated_tolerances(statement, "v4") == pytest.approx((0.5, 0.5))  # before
    assert stated_tolerances(statement) == pytest.approx((1e-6, 1e-6))


@pytest.mark.parametrize(("statement", "tolerances"), HONEST)
def test_the_answer_s_own_tolerance_reads_as_before(statement: str, tolerances: tuple[float, float]) -> None:
    assert stated_tolerances(statement) == pytest.approx(tolerances)
    assert stated_tolerances(statement, "v4") == stated_tolerances(statement)


@pytest.mark.parametrize("statement", NOT_A_BOUND)
def test_a_number_type_s_precision_is_no_bound(statement: str) -> None:
    assert stated_tolerances(statement) is None


def _earlier_rows() -> list[str]:
    rows = [s for s, _ in FOREIGN_EITHER + FOREIGN_ABSOLUTE] + NO_BOUND + ENGLISH + ABSOLUTE_ONLY + EITHER
    for name in ("codecontests_rows", "taco_rows", "apps_rows", "livecodebench_rows"):
        for row in getattr(contest_fixtures, name)():
            rows += [row[k] for k in ("description", "question", "question_content") if isinstance(row.get(k), str)]
    return rows


def test_every_earlier_row_reads_as_before() -> None:
    # HONEST: rounds 13-14's rows and every contest fixture's statement keep round 14's reading.
    rows = _earlier_rows()
    assert len(rows) > 60
    assert [stated_tolerances(s) for s in rows] == [stated_tolerances(s, "v4") for s in rows]


def test_contests_v5_reads_precision_and_v4_keeps_round_14_s_reading() -> None:
    row = {**contest_fixtures.codecontests_rows()[1], "description": "Print n / 3 with a precision of 10^{-6}.\n"}
    task = rlvr_envs.make("code-contests-v5", data=[row]).tasks[0]
    assert task.answer["checker"] == {"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # v4 is deprecated
        old = rlvr_envs.make("code-contests-v4", data=[row]).tasks[0]
    assert old.answer["checker"] == {"type": "tokens"}


@pytest.mark.parametrize(
    "statement",
    [
        "'s " * 20_000 + "error 0.5",
        "whose " * 30_000 + "tolerance 1e-6 answer",
        "的" * 50_000 + "误差 1e-6 答案",
        "a" * 10**5,
    ],
)
def test_hostile_statements_never_raise(statement: str) -> None:
    found = stated_tolerances(statement)
    assert found is None or all(0 <= t < 1 for t in found)

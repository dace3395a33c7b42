"""Red team round 14, a contest statement's float tolerance in the languages sets are written in.

Round 13 read "absolute or relative error ... 10^{-6}" in English only: a statement in Chinese,
Japanese, Korean, Russian, Spanish, French, German or Portuguese got an exact comparison, so an
honest float answer (``0.3333333`` for ``0.33333333``) failed. The reading is now one of error and
difference words, bounds and kinds in each language (``contests.stated_bounds``), and what is not
a bound stays none: an error of time or memory, a guarantee about the input, a lower bound.

Every ``FOREIGN_*`` row below got no tolerance before (``test_*_pays`` failed: an exact comparison);
every ``NO_BOUND`` row gets none, before and after; every English row round 13 read is read the same.
No sandbox: the comparisons run on the host.
"""

from __future__ import annotations

import warnings

import pytest

import rlvr_envs
from rlvr_code.contests.checkers import english_tolerances, parse_checker, stated_tolerances
from rlvr_code.contests.rows import _checker_for
from tests.code.contest_fixtures import codecontests_rows

# (statement, bound): bounds either error (absolute or relative, or an error word without a kind).
FOREIGN_EITHER = [
    ("你的答案与标准答案的绝对误差或相对误差不超过 $10^{-6}$ 即视为正确。", 1e-6),
    ("答案误差不超过1e-6即可。", 1e-6),
    ("若你的答案的相对误差不超过 10^-4，则视为正确", 1e-4),
    ("你的答案與標準答案的絕對誤差或相對誤差不超過 10^{-6} 即視為正確。", 1e-6),
    ("絶対誤差または相対誤差が 10^{-6} 以下であれば正解とみなされます。", 1e-6),
    ("出力は、相対誤差が 10⁻⁹ 以下であれば正解と判定される", 1e-9),
    ("정답과의 절대 오차 또는 상대 오차가 10^{-6} 이하이면 정답으로 인정된다.", 1e-6),
    ("Ответ будет засчитан, если абсолютная или относительная погрешность не превосходит 10^{-6}.", 1e-6),
    ("Ответ считается верным, если его относительная ошибка не больше 1e-6.", 1e-6),
    ("Tu respuesta se considerará correcta si su error absoluto o relativo no excede 10^{-6}.", 1e-6),
    ("Votre réponse sera acceptée si son erreur absolue ou relative ne dépasse pas 10^{-6}.", 1e-6),
    ("Die Antwort wird akzeptiert, wenn der absolute oder relative Fehler höchstens 10^{-6} beträgt.", 1e-6),
    ("Eine Abweichung von bis zu 1e-6 (relativ) wird toleriert.", 1e-6),
    ("Sua resposta será aceita se o erro absoluto ou relativo não exceder 1e-6.", 1e-6),
    ("答案与标准答案的误差在 10^{-6} 以内即可。", 1e-6),
    ("허용 오차는 10^{-6}이다.", 1e-6),
    ("Your answer is accepted if its error does not exceed 2·10^{-6}.", 2e-6),
]
# (statement, bound): the absolute error alone ("absolute" without "relative", or a difference word).
FOREIGN_ABSOLUTE = [
    ("绝对误差不超过 10^{-4} 即可。", 1e-4),
    ("与正确答案相差不超过 0.000001 即视为正确。", 1e-6),
    ("ジャッジの出力との絶対誤差が 10^{-6} 以下ならば正解です。", 1e-6),
    ("정답과의 차이가 10⁻⁶ 이하이면 정답이다.", 1e-6),
    ("Абсолютная погрешность ответа не должна превышать 10^{-6}.", 1e-6),
    ("Votre réponse sera acceptée si l'erreur absolue ne dépasse pas 0,000001.", 1e-6),
    ("La respuesta es correcta si el error absoluto es como máximo 10^-6.", 1e-6),
    ("Der absolute Fehler darf höchstens 10^{-6} betragen.", 1e-6),
    ("Die Ausgabe darf vom korrekten Ergebnis um höchstens 10^{-6} abweichen.", 1e-6),
    ("Ответ считается правильным, если он отличается от правильного не более чем на 10^{-6}.", 1e-6),
    ("Answers differing from the jury's by at most 1e-6 are accepted.", 1e-6),
    ("A resposta é aceita se o erro absoluto for no máximo 10^{-6}.", 1e-6),
    ("Your answer is accepted if it is within 10^{-6} of the correct answer.", 1e-6),
]
NO_BOUND = [
    "Print the sum of a and b.",
    "输出 a+b 的值。",
    "Time limit 2 s. The time tolerance is 10^{-3} seconds.",
    "内存限制 256MB，时间误差 10^{-3}。",
    "La tolérance de temps est de 10^{-3}.",
    "Погрешность времени 10^{-3}.",
    "Runtime Error if x < 10^-3.",
    "It is guaranteed that any two points differ by at least 10^{-3}.",
    "保证任意两点的距离之差至少为 10^{-3}。",
    "任意の 2 点の差は 10^{-3} 以上であることが保証される。",
    "Print the answer modulo 10^9+7; the errors are counted for n ≤ 10^5.",
    "The relative error of the input data is 1e-3 s.",
    "Find the number of errors; n ≤ 10^5.",
    "输入保证所有坐标的差至少为 10^{-3}。",
]


def _judge(statement: str):
    checker = parse_checker(_checker_for(statement, "auto"))
    assert checker is not None
    return checker


@pytest.mark.parametrize(("statement", "bound"), FOREIGN_EITHER + FOREIGN_ABSOLUTE)
def test_an_honest_float_within_a_foreign_statement_s_bound_pays(statement: str, bound: float) -> None:
    checker = _judge(statement)
    assert checker.kind == "float"
    for want in ("0.33333333", "-2.5", "0"):
        got = repr(float(want) + 0.4 * bound)
        assert checker.compare(got + "\n", want + "\n")[0], (got, want)


@pytest.mark.parametrize(("statement", "bound"), FOREIGN_EITHER + FOREIGN_ABSOLUTE)
def test_a_float_outside_the_bound_does_not(statement: str, bound: float) -> None:
    checker = _judge(statement)
    for want in ("0.33333333", "-0.5"):
        got = repr(float(want) + 5 * bound)
        assert not checker.compare(got, want)[0], (got, want)


@pytest.mark.parametrize(("statement", "bound"), FOREIGN_EITHER)
def test_a_relative_bound_accepts_the_relative_error(statement: str, bound: float) -> None:
    assert stated_tolerances(statement) == pytest.approx((bound, bound))
    assert _judge(statement).compare(repr(1e9 * (1 + 0.4 * bound)), "1000000000")[0]


@pytest.mark.parametrize(("statement", "bound"), FOREIGN_ABSOLUTE)
def test_an_absolute_bound_alone_refuses_the_relative_error(statement: str, bound: float) -> None:
    assert stated_tolerances(statement) == pytest.approx((bound, 0.0))
    assert not _judge(statement).compare(repr(1e9 * (1 + 0.4 * bound)), "1000000000")[0]


@pytest.mark.parametrize("statement", NO_BOUND)
def test_a_statement_stating_no_bound_gets_none(statement: str) -> None:
    assert stated_tolerances(statement) is None
    checker = _judge(statement)
    assert checker.kind == "tokens" and not checker.compare("3.0000001", "3")[0]


ENGLISH = [
    "Your answer is considered correct if its absolute or relative error does not exceed 10^{-6}.",
    "The relative or absolute error must not exceed 10^-9",
    "Output with an absolute error of at most 1e-4.",
    "answers with absolute error less than 0.001 are accepted",
    "Print the relative order first. Then print the area; its absolute error must not exceed 1e-6.",
    "It must have an absolute error at most 1e-6, or a relative error at most 1e-6.",
    "Print with absolute/relative error 1e-6.",
    "The checker accepts an ABSOLUTE ERROR up to 10^-6 (no other tolerance).",
    "Print n / 3.\n\nYour answer is accepted if its relative error does not exceed 10^{-6}.\n",
]


@pytest.mark.parametrize("statement", ENGLISH)
def test_english_statements_read_as_round_13_read_them(statement: str) -> None:
    # HONEST: every English phrasing round 13 read keeps its bound and kind.
    assert english_tolerances(statement) is not None
    assert stated_tolerances(statement) == pytest.approx(english_tolerances(statement))


def _row(statement: str) -> dict:
    row = dict(codecontests_rows()[1])
    return {**row, "description": statement}


def test_contests_v4_reads_a_foreign_statement_and_v3_keeps_the_english_reading() -> None:
    statement = "输出 n / 3。\n\n你的答案与标准答案的绝对误差或相对误差不超过 10^{-6} 即视为正确。\n"
    task = rlvr_envs.make("code-contests-v5", data=[_row(statement)]).tasks[0]
    assert task.answer["checker"] == {"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # v3 is deprecated (its English-only reading)
        old = rlvr_envs.make("code-contests-v3", data=[_row(statement)]).tasks[0]
    assert old.answer["checker"] == {"type": "tokens"}


@pytest.mark.parametrize("statement", ["", "\x00" * 10, "10^{-" * 5000, "误差" * 10_000 + "1e-6", "0," * 50_000])
def test_hostile_statements_never_raise(statement: str) -> None:
    found = stated_tolerances(statement)
    assert found is None or all(0 <= t < 1 for t in found)

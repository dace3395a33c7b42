"""Issue 26, round 8: the shared answer reading (math, reasoning-gym, the judge's screen).

* Struck-out answers in the shared concealment (``rlvr_envs.concealment``): a TeX strike command
  still open at the answer (``\\sout{``, ``\\st{``, ``\\cancel{``, ``\\xout{``, ``\\cancelto{0}{``), a
  ``<strike>``/``<del>``/``<s>`` element, a markdown ``~~`` that can open a strike, combining overlay
  strokes. reasoning-gym paid ``\\sout{<answer>A</answer>}``.
* A clause after the answer is read only when one covered language reads most of its words: one
  function word of a covered language ("por", "i", "tai", "er") no longer vouches for a clause of
  words no list knows (Albanian, Nepali, Basque, Latvian, Icelandic paid).
* An alternative or reconsideration that is an arithmetic expression is judged by its exact value
  ("Or 2*(\\frac{11}{2}) + 1" is 12): its first number being the answer's own is no longer enough.
* A later sentence that restates the answer ("That is, 7 cm.", "I.e. 7.", "= 7", "即7。") with another value;
  one word of no covered vocabulary run on after the answer; letters a covered language shares with an
  uncovered one (Cantonese characters, Yiddish in Hebrew letters, Assamese in Bengali letters).

Every probe here is written for this file (other languages, positions and layouts than the
attacker's); the honest rows are what models write after a right answer and must keep it.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from rlvr_envs.answer_tail import tail_refusal, taken_back
from rlvr_envs.concealment import hidden_before
from rlvr_envs.extract import extract_answer
from rlvr_envs.tail_arithmetic import value_of
from rlvr_math import MathVerifier


def _taken(completion: str) -> str | None:
    found = extract_answer(completion)
    assert found is not None, completion
    finding = taken_back(completion, found)
    return finding.kind if finding is not None else None


def _math(completion: str, gold: str = "6") -> float:
    task = Task(id="t", prompt="Find the smallest positive integer n.", answer=gold)
    return MathVerifier().verify(task, completion).reward


STRUCK = [
    "\\st{<answer>4</answer>}",
    "\\xout{<answer>4</answer>}",
    "\\bcancel{<answer>4</answer>}",
    "Final: \\cancelto{0}{<answer>4</answer>}",
    "<answer>7</answer> \\cancel{ the answer is <answer>4</answer> }",
    "<strike>\n<answer>4</answer>\n</strike>",
    "<del class='x'><answer>4</answer></del>",
    "So the result is ~~<answer>4</answer>~~",
    "<answer>4\u0336</answer>",
    "\\sout {\\textbf{<answer>4</answer>}}",
]

SEEN = [
    "\\sout{an old guess} <answer>4</answer>",
    "<del>5</del> <answer>4</answer>",
    "~~5~~ so <answer>4</answer>",
    "The value a~~b is spacing; so~~<answer>4</answer>",
    "\\cancel{x} cancels, leaving <answer>4</answer>",
    "<answer>4</answer>",
]


@pytest.mark.parametrize("completion", STRUCK)
def test_a_struck_final_answer_is_no_answer(completion: str) -> None:
    assert _taken(completion) == "concealed"


@pytest.mark.parametrize("completion", SEEN)
def test_a_strike_closed_before_the_answer_leaves_it_seen(completion: str) -> None:
    assert _taken(completion) is None


@pytest.mark.parametrize(
    "completion",
    [
        "\\boxed{\\st{6}}",
        "\\st{\\boxed{6}}",
        "\\xout{$\\boxed{6}$}",
        "\\cancelto{0}{\\boxed{6}}",
        "<strike>\\boxed{6}</strike>",
    ],
)
def test_math_refuses_a_struck_box(completion: str) -> None:
    assert _math(completion) == 0.0


def test_hidden_before_reads_only_what_is_open_at_its_end() -> None:
    assert hidden_before("text \\xout{") is not None
    assert hidden_before("text \\xout{old} new ") is None
    assert hidden_before("") is None


# Clauses in languages no lexicon covers, each holding a word some covered language also uses.
UNREAD = [
    ", tai neteisinga",  # Lithuanian: "tai" is Finnish "or"
    " aga ma ei ole kindel",  # Estonian
    ", pero dili ko sigurado",  # Cebuano: "pero" is Spanish
    ", maar ek is nie seker nie",  # Afrikaans: Dutch "maar", Polish "nie"
    " ali nisam siguran",  # Croatian
    ", nanging kula mboten yakin",  # Javanese
    " men mwen pa sèten",  # Haitian Creole
    " þetta er rangt",  # Icelandic: Scandinavian "er"
    ", tas ir nepareizi",  # Latvian
    " mae hyn yn anghywir",  # Welsh
    ", मलाई थाहा छैन",  # Nepali in the letters Hindi uses
    " मला खात्री नाही",  # Marathi
    "\n\nAriko sinzi neza.",  # Kinyarwanda, a sentence of its own
    "\n\nPero dili ko sigurado.",
    " narobe",  # one word run on after the answer (Slovene "wrong")
    " netočno",
    "，但係我唔肯定",  # Cantonese in Chinese characters
    ", אבער איך בין נישט זיכער",  # Yiddish in Hebrew letters
    ", কিন্তু মই নিশ্চিত নহয়",  # Assamese in Bengali letters
    ", но не съм сигурен",  # Bulgarian in Cyrillic
    ", pero Dili Ko Sigurado",  # capitalised as names: names stand only beside words a language reads
]

HONEST = [
    ", which is the number of ways.",
    " because 2 + 4 = 6.",
    " square units",
    " dollars per hour.",
    "\n\nDonc la réponse est 6.",
    "\n\nDie Antwort ist 6.",
    "\n\nLa respuesta es 6.",
    "\n\nSvaret er 6.",
    "\n\nОтвет равен 6.",
    "\n\nउत्तर 6 है।",
    "\n\nالإجابة هي 6.",
    "\n\nپاسخ 6 است.",
    "\n\nGood luck!",
    "\n\nHope this helps!",
    "\n\nQED.",
    ", since opposite sides are congruent.",
    "\n\nהתשובה היא 6.",
    "\n\nউত্তর হল 6।",
    "\n\n答案是6。",
    "\n\n정답은 6입니다.",
    " dollars",
    " inches.",
    " (die Donau in German).",
    ". It flows through Vienna, Bratislava, Budapest and Belgrade.",
]


@pytest.mark.parametrize("tail", UNREAD)
def test_a_clause_one_word_of_a_covered_language_cannot_vouch_for(tail: str) -> None:
    finding = tail_refusal(tail, "6")
    assert finding is not None and finding.kind == "unread_language", finding


@pytest.mark.parametrize("tail", HONEST)
def test_an_honest_tail_in_a_covered_language_is_read(tail: str) -> None:
    assert tail_refusal(tail, "6") is None


@pytest.mark.parametrize("tail", [t for t in UNREAD if "\n" not in t][:6])
def test_math_refuses_an_unread_clause_after_the_box(tail: str) -> None:
    assert _math("The answer is $\\boxed{6}$" + tail) == 0.0


# (answer, what follows it, refused): alternatives and reconsiderations judged by their exact value
EXPRESSIONS = [
    ("\\frac{11}{2}", ".\n\nOr 3\\cdot\\frac{11}{2} - 4.", True),
    ("\\frac{11}{2}", ".\n\nAlternatively, (\\frac{11}{2})^2.", True),
    ("\\frac{11}{2}", ".\n\nActually, it is \\frac{11}{2} \\times 2.", True),
    ("\\frac{11}{2}", ".\n\n**Or** $\\frac{11}{2} + \\frac{1}{2}$", True),
    ("12", ".\n\nWait: 12 / 2 + 1.", True),
    ("12", ".\n\nOder 2 \\cdot 12.", True),
    ("6", ".\n\nWait, 3 + 4 = 7.", True),
    ("x^2+1", ".\n\nOr 2(x^2+1) - 1.", True),
    ("x^2+1", ".\n\nOn second thought: (x^2+1)^2", True),
    ("2\\sqrt{3}", ".\n\nOr 2\\sqrt{3} + 1.", True),
    # the same value, or a calculation that ends in it, stands
    ("\\frac{11}{2}", ".\n\nOr equivalently 5.5.", False),
    ("\\frac{11}{2}", ".\n\nOr, in decimal form, $5.5$.", False),
    ("\\frac{11}{2}", ".\n\nOr \\frac{22}{4}.", False),
    ("\\frac{11}{2}", ".\n\nThat is, 11/2.", False),
    ("6", ".\n\nOr $2 \\cdot 3$.", False),
    ("6", ".\n\nWait, let me double-check: 2 + 4 = 6.", False),
    ("6", ".\n\nActually, 2 \\times 3 = 6 confirms it.", False),
    ("6", ".\n\nHmm, 7 would fail since it is odd.", False),
    ("6", ".\n\nOr 6 in all.", False),
    ("x^2+1", ".\n\nOr $x^2 + 1$.", False),
    ("2\\sqrt{3}", ".\n\nOr $2\\sqrt{3}$.", False),
]


@pytest.mark.parametrize(("answer", "tail", "refused"), EXPRESSIONS)
def test_an_alternative_expression_is_judged_by_its_value(answer: str, tail: str, refused: bool) -> None:
    finding = tail_refusal(tail, answer)
    assert (finding is not None) == refused, finding
    if refused:
        assert finding is not None and finding.kind == "alternative"


# A later sentence restating the answer with another value is a second answer; with the same value, or about
# another quantity, or a remark about another value, it stands.
RESTATED = [
    ("\n\nThat is, 7 cm.", True),
    ("\n\nIn other words, 7 apples.", True),
    ("\n\nSo 7 in total.", True),
    ("\n\nC'est-à-dire 7.", True),
    ("\n\nEs decir, 7.", True),
    ("\n\n即7。", True),
    ("\n\nつまり7です。", True),
    ("\n\n즉 7입니다.", True),
    ("\n\nI.e. 7.", True),
    ("\n\nNamely 7.", True),
    ("\n\n= 7", True),
    ("\n\nFinal: 7", True),
    ("\n\nThat is, 14/2.", True),
    ("\n\nThat is 6 cm.", False),
    ("\n\nSo 6 in total.", False),
    ("\n\nFinal: 6", False),
    ("\n\nThat is, 12/2.", False),
    ("\n\nSo n = 3.", False),
    ("\n\nSo 7 would not work.", False),
    ("\n\nThus 2 \\cdot 3 = 6.", False),
    ("\n\nHence x = 7 is excluded.", False),
    ("\n\nSo there are 2 choices for the first digit and 3 for the second.", False),
    ("\n\nTherefore, 6 is the answer.", False),
]


@pytest.mark.parametrize(("tail", "refused"), RESTATED)
def test_a_restatement_with_another_value_is_a_second_answer(tail: str, refused: bool) -> None:
    finding = tail_refusal(tail, "6")
    assert (finding is not None) == refused, finding


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2*(\\frac{11}{2}) + 1", "12"),
        ("\\dfrac{1}{8}", "1/8"),
        ("3 \\times 10^{3}", "3000"),
        ("(3)(4)", "12"),
        ("\\frac12", "1/2"),
        ("1,000", "1000"),
        ("-2^2", "-4"),
    ],
)
def test_value_of_reads_arithmetic_exactly(text: str, value: str) -> None:
    from fractions import Fraction

    assert value_of(text) == Fraction(value)


@pytest.mark.parametrize("text", ["x+1", "2^1000", "1/0", "\\sqrt{4}", "(" * 300 + "1", "2^(1/2)", "", "9" * 5000])
def test_value_of_refuses_what_it_cannot_read_or_bound(text: str) -> None:
    assert value_of(text) is None


# A text answer (a word, a name, a list: reasoning-gym) reconsidered or offered again with another text of its
# kind ("Actually, it is rehtorb." paid 16/16 on rg-family_relationships in full mode); a remark stands.
WORD_ALTERNATIVES = [
    ("brother", "\n\nActually, it is sister.", True),
    ("brother", "\n\nOn second thought: rehtorb.", True),
    ("brother", "\n\n或者姐姐。", True),
    ("brother", "\n\nそれとも sister。", True),
    ("brother", "\n\n**Wait**, it should be **uncle**.", True),
    ("apple, banana, cherry", "\n\nActually, it is banana, apple, cherry.", True),
    ("Bob is a knave, and Alice is a knight", "\n\nCorrection: Bob is a knight, and Alice is a knave.", True),
    ("\\text{odd}", "\n\nOr \\text{even}.", True),
    ("brother", "\n\nActually, it is Brother.", False),
    ("brother", "\n\nOr, in words: the brother.", False),
    ("brother", "\n\nActually, that was easy!", False),
    ("brother", "\n\nAlternatively, one could draw the family tree first.", False),
    ("x^2+1", "\n\nAlternatively, by symmetry.", False),
    ("(x-1)(x+2)", "\n\nAlternatively, factor first.", False),
    ("apple, banana, cherry", "\n\nActually, sorting was quick here.", False),
]


@pytest.mark.parametrize(("answer", "tail", "refused"), WORD_ALTERNATIVES)
def test_a_text_answer_reconsidered_with_another_text_is_taken_back(answer: str, tail: str, refused: bool) -> None:
    finding = tail_refusal(tail, answer)
    assert (finding is not None and finding.kind == "alternative") == refused, finding


def test_best_read_is_the_best_language_read_word_by_word() -> None:
    # tail_words._best_read (one lookup a word) must count as the per-language reference does.
    import random

    from rlvr_envs import tail_words

    vocab = [*sorted(tail_words._FUNCTION_WORDS), "arrangements", "vienna", "xyzzy", "da", "er", "seker", "nuk"]
    rng = random.Random(7)
    for _ in range(20_000):
        words = [rng.choice(vocab) for _ in range(rng.randint(1, 8))]
        want = max(tail_words._read_in(words, v, lang) for lang, v in tail_words._VOCABULARY.items())
        assert tail_words._best_read(words) == want, words

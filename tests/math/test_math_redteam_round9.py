"""Issue 26, round 9: the math red team's ninth campaign (acting as a policy under RL).

Each table is one class of wrong or hedged answers that scored 1 on math-*-v4 before this round, with
variants beyond the probes that found them; the fixes are mechanisms:

* a value at one case of a variable inside the final answer (an evaluation bar, ``2|_{n=2}``) is a
  conditional answer (``rlvr_math.hedging``);
* the final box inside something no reader sees as text after another box: a code fence still open,
  a tag's attribute, a box stored in a register (``\\setbox``), a command named with ``@``
  (``\\@gobble``) or with a beamer overlay (``\\only<2>``), an xcolor mix that is white
  (``white!100``, ``red!0``): ``rlvr_math.asides`` and ``rlvr_envs.concealment``;
* what the answer's sentence says in words is read by the shared tail reading (``rlvr_envs``:
  ``tail_alternatives.described_alternative`` / ``conditional_value`` / ``widened`` and
  ``tail_words.unread_aside``): a second value described after an "or", another value with a
  condition, the answer widened to a class ("up to sign"), one unread word set off after it, the
  writer's state in words no covered language reads.

The honest rows are what models write after a right answer and must keep it.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from rlvr_math import MathVerifier


def verify(completion: str, gold: object = "3"):
    return MathVerifier().verify(Task(id="t", prompt="Compute it.", answer=gold), completion)


# -- 1. the value at one case: an evaluation bar inside the final answer -----------------------------------------
EVALUATED = [
    ("\\boxed{2|_{n=2}}", "2"), ("\\boxed{2 \\Big|_{n=2}}", "2"), ("\\boxed{5\\vert_{x=1}}", "5"),
    ("\\boxed{7 \\rvert_{k = 3}}", "7"), ("<answer>2|_{n=2}</answer>", "2"), ("\\boxed{\\frac{1}{2}\\bigg|_{t=0}}", "\\frac{1}{2}"),
]  # fmt: skip


@pytest.mark.parametrize(("completion", "gold"), EVALUATED)
def test_a_value_at_one_case_is_a_conditional_answer(completion, gold):
    assert not verify(completion, gold).passed, completion


def test_a_norm_or_an_absolute_value_is_no_evaluation_bar():
    assert verify("\\boxed{|{-3}|}", "3").passed
    assert verify("\\boxed{\\|v\\|_{2}}", "\\|v\\|_{2}").passed


# -- 2. the final box where no reader sees it as an answer, after another box ------------------------------------
HIDDEN_LAST = [
    "\\boxed{4}\n```\n\\boxed{3}\n```", "\\boxed{4}\n~~~\n\\boxed{3}\n~~~", "\\boxed{4}\n```latex\n% final\n\\boxed{3}",
    '\\boxed{4}\n<img alt="\\boxed{3}">', '\\boxed{4}\n<input type="hidden" value="\\boxed{3}">',
    "\\boxed{4}\n<a title='\\boxed{3}'>see</a>", "\\boxed{4}\n\\@gobble{\\boxed{3}}", "\\boxed{4} \\@firstoftwo{}{\\boxed{3}}",
    "\\boxed{4}\n\\only<2>{\\boxed{3}}", "\\boxed{4}\n\\uncover<3->{\\boxed{3}}", "\\boxed{4}\n\\setbox0\\hbox{\\boxed{3}}",
    "\\boxed{4}\n\\global\\setbox\\mybox=\\vbox{\\boxed{3}}", "\\boxed{4}\n\\textcolor{white!100}{\\boxed{3}}",
    "\\boxed{4}\n\\textcolor{red!0}{\\boxed{3}}", "\\boxed{4} {\\color{blue!0!white}\\boxed{3}}",
]  # fmt: skip


@pytest.mark.parametrize("completion", HIDDEN_LAST)
def test_the_final_box_hidden_after_another_is_no_answer(completion):
    assert not verify(completion, "3").passed, completion


SHOWN_LAST = [
    "```python\nprint(3)\n```\nSo the answer is \\boxed{3}.", "Step: \\boxed{4} is wrong, recompute: \\boxed{3}",
    "\\boxed{4}\n\\textcolor{red!60}{\\boxed{3}}", "<p title='x'>text</p> \\boxed{3}", "\\boxed{3}",
    "We had $x = \\boxed{4}$ before; `code` and then \\textbf{\\boxed{3}}",
]  # fmt: skip


@pytest.mark.parametrize("completion", SHOWN_LAST)
def test_a_final_box_in_plain_view_stands(completion):
    assert verify(completion, "3").passed, completion


# -- 3. what the answer's sentence says in words ----------------------------------------------------------------
IN_WORDS = [
    # a second value described after an "or"
    "\\boxed{3}, or its negative.", "\\boxed{3} (or its reciprocal)", "\\boxed{3} or one more", "\\boxed{3}, or the next integer.",
    "\\boxed{3} or double that", "\\boxed{3}, oder das Doppelte.", "\\boxed{3}, o su negativo.", "\\boxed{3}, ou son carré.",
    "\\boxed{3}或其相反数", "\\boxed{3} или на единицу больше",
    # another value with a condition
    "\\boxed{3} (7 if you count zero)", "\\boxed{3} — 7 when n is odd", "\\boxed{3} [or 7 assuming repetition]",
    "\\boxed{3}; 5 falls man die Null zählt.", "\\boxed{3} (5 si on compte zéro)",
    # widened to a class of values
    "\\boxed{3}, up to sign.", "\\boxed{3} up to a constant factor", "\\boxed{3} (up to rounding)", "\\boxed{3}, modulo sign.",
    "\\boxed{3}, bis auf das Vorzeichen.", "\\boxed{3}, au signe près.", "\\boxed{3}（相差一个符号）", "\\boxed{3}, salvo el signo.",
    # one unread word set off, the writer's state unread
    "\\boxed{3}, forsitan.", "\\boxed{3} (fortasse)", "\\boxed{3} – dubito", "\\boxed{3}; mbase.",
    "\\boxed{3} but I am nuk sigurt.", "\\boxed{3}. I'm jo i sigurt.", "\\boxed{3}, but I feel pak e dyshimtë.",
    "\\boxed{3}, I am ez ziur.",
]  # fmt: skip


# the answer as a bound; a question in another script's mark; one set-off word read only by its English shape; an
# "or" with number words of another value
MORE_IN_WORDS = [
    "\\boxed{3} (at least)", "\\boxed{3}, or more.", "\\boxed{3} (mindestens)", "\\boxed{3}（至少）", "\\boxed{3} or fewer",
    "\\boxed{3} (au moins)", "\\boxed{3}‽", "\\boxed{3}¿", "\\boxed{3}؟", "\\boxed{3}՞", "\\boxed{3} (dubious)",
    "\\boxed{3}, questionable.", "\\boxed{3} (speculative)", "\\boxed{3} (negated)", "\\boxed{3} — erroneous",
    "\\boxed{3}, or four.", "\\boxed{3}\\text{ or four}", "\\boxed{3} or twenty one", "\\boxed{3} (in absolute value)",
    "\\boxed{3} (±)", "\\boxed{3} ;)", "\\boxed{3} :/", "\\boxed{3} :-(", "\\boxed{3} :P", "\\boxed{3}\n\n:-/",
]  # fmt: skip
IN_WORDS += MORE_IN_WORDS


@pytest.mark.parametrize("completion", IN_WORDS)
def test_what_the_answer_sentence_says_in_words_takes_it_back(completion):
    assert not verify(completion, "3").passed, completion


HONEST_WORDS = [
    "\\boxed{3}, or equivalently three.", "\\boxed{3}, up to rotation.", "\\boxed{3} up to isomorphism",
    "\\boxed{3} \\pmod{n}", "\\boxed{3} \\pmod 7", "\\boxed{3}, QED.", "\\boxed{3}, respectively.", "\\boxed{3}, exactly.",
    "\\boxed{3}, as required.", "\\boxed{3}, done.", "\\boxed{3} (cm)", "\\boxed{3} (since 12/4 = 3)",
    "\\boxed{3} (3 if you count zero)", "The answer is \\boxed{3}. I am confident in this answer.",
    "\\boxed{3}, up to 2 decimal places.",
]  # fmt: skip


@pytest.mark.parametrize("completion", HONEST_WORDS)
def test_honest_words_after_the_answer_keep_it(completion):
    assert verify(completion, "3").passed, completion


@pytest.mark.parametrize(
    ("completion", "gold"),
    [
        ("\\boxed{3}, or three.", "3"), ("\\boxed{\\frac{1}{2}}, or one half.", "\\frac{1}{2}"), ("\\boxed{3} (simplified)", "3"),
        ("\\boxed{3} (rounded)", "3"), ("\\boxed{3}, at least as computed above with care and attention.", "3"),
        ("\\boxed{21} or twenty one", "21"), ("\\boxed{3} :)", "3"), ("\\boxed{3}. Hope this helps :D", "3"),
        ("\\boxed{44}. Check: $17 \\cdot 44 \\equiv 1 \\pmod{83}$, so our answer is correct.", "44"),
    ],
)  # fmt: skip
def test_the_answer_in_words_and_honest_labels_keep_it(completion, gold):
    assert verify(completion, gold).passed, completion


def test_a_gsm8k_sentence_after_the_answer_keeps_it():
    assert verify("The answer is \\boxed{12} because she bought 3 packs of 4 apples.", "12").passed

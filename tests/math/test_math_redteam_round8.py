"""Issue 26, round 8: the math red team's eighth campaign (acting as a policy under RL).

Each table is one class of wrong or hedged answers that scored 1 on math-*-v4, with variants beyond
the probes that found them (other languages, markup, positions). The fixes are mechanisms:

* a condition *inside* the final answer is read as the shared tail check reads one after it, from
  every word start (``rlvr_math.hedging.condition_inside``);
* a negated remark of a few words after the answer is read word by word (``unread_remark``);
* the final box inside a note opened after another box (footnote, tooltip, aside, superscript,
  link, an environment no list names) is a second answer (``rlvr_math.asides``: the containers
  that show their content in line are the allow-list);
* another value on a short labelled line after the answer, in any markup, is an alternative;
* two boxes with only inline HTML between them are one answer, as they are with spaces between.

The probe classes that scored 0 already (alternative encodings of digits, roman numerals, number
words, sign tricks, interval ends, magnitude-changing units, degrees against radians, ``\\pm``,
a code block printing another value) are kept as rows, with the right answers of the same
encodings that must keep scoring 1.
"""

from __future__ import annotations

import time

import pytest

from rlvr_envs import Task
from rlvr_math import MathVerifier
from rlvr_math.asides import note_around, value_on_short_line
from rlvr_math.hedging import condition_inside


def verify(completion: str, gold: object = "3", prompt: str = "Compute it.", **options):
    return MathVerifier(**options).verify(Task(id="t", prompt=prompt, answer=gold), completion)


# -- 1. a condition inside the final answer, naming the answer's own value or another ------------
CONDITIONS_INSIDE = [
    ("\\boxed{2 unless n = 2}", "2"), ("\\boxed{2 \\text{ unless } n = 2}", "2"), ("\\boxed{2 \\text{ only if } n=2}", "2"),
    ("\\boxed{2 \\text{ when } n = 2}", "2"), ("\\boxed{2 \\text{ whenever } n \\ge 2}", "2"),
    ("\\boxed{2 \\text{ provided that } n = 2}", "2"), ("\\boxed{2 \\text{ assuming } n=2}", "2"),
    ("\\boxed{2 \\text{ for odd } n}", "2"), ("\\boxed{2 \\text{ as long as } n = 2}", "2"),
    ("\\boxed{2 \\textrm{ iff } n = 2}", "2"), ("\\boxed{2 \\mbox{ if } n = 2}", "2"), ("\\boxed{2\\ \\mathrm{if}\\ n=2}", "2"),
    ("\\boxed{2 \\text{ falls } n = 2}", "2"), ("\\boxed{2 \\text{ sofern } n = 2}", "2"), ("\\boxed{2 \\text{ wenn } n = 2}", "2"),
    ("\\boxed{2 \\text{ si } n = 2}", "2"), ("\\boxed{2 \\text{ à condition que } n = 2}", "2"),
    ("\\boxed{2 \\text{ siempre que } n = 2}", "2"), ("\\boxed{2 \\text{ purché } n = 2}", "2"),
    ("\\boxed{2 \\text{ desde que } n = 2}", "2"), ("\\boxed{2 \\text{ если } n = 2}", "2"), ("\\boxed{2 \\text{ jeśli } n = 2}", "2"),
    ("\\boxed{2 \\text{ indien } n = 2}", "2"), ("\\boxed{2 \\text{ eğer } n = 2}", "2"), ("\\boxed{2 \\text{ jika } n = 2}", "2"),
    ("\\boxed{2 \\text{（如果 } n = 2 \\text{）}}", "2"), ("\\boxed{2 \\text{（若 } n = 2\\text{）}}", "2"),
    ("\\boxed{2\\ (n=2\\text{ ならば})}", "2"), ("\\boxed{2\\ (n=2\\text{이면})}", "2"), ("\\boxed{2, \\text{ if } n = 2}", "2"),
    ("<answer>2 unless n = 2</answer>", "2"), ("<answer>2 \\text{ if } n = 2</answer>", "2"), ("#### 2 unless n = 2", "2"),
    ("\\boxed{x = 2 \\text{ provided } y = 2}", "2"), ("\\boxed{(1, 2) \\text{ if } a = 1}", "(1,2)"),
    # no marker any list names: words tie the value to a case on a variable
    ("\\boxed{2 \\text{ pour } n = 2}", "2"), ("\\boxed{2 \\text{ in the case } n = 2}", "2"), ("\\boxed{2\\text{, valid for } n = 2}", "2"),
    ("\\boxed{2 \\text{ voor } n \\geq 2}", "2"), ("\\boxed{2 \\text{ dla } n > 1}", "2"),
]  # fmt: skip


@pytest.mark.parametrize(("completion", "gold"), CONDITIONS_INSIDE)
def test_a_condition_inside_the_final_answer_makes_it_conditional(completion, gold):
    verdict = verify(completion, gold)
    assert not verdict.passed, (completion, verdict)


def test_a_gold_answer_with_a_condition_is_answered_with_one():
    assert verify("\\boxed{3 \\text{ unless } n = 1}", "3 \\text{ unless } n = 1").passed
    assert condition_inside("3 if n = 1", "3 if n = 1") is None
    assert condition_inside("3 if n = 1", "3") == "if"
    assert condition_inside("if", "3") is None  # nothing before it: no value with a condition


# -- 2. a remark of one to three words no covered language reads (a Latin hedge, a negation beside one)
# (mended in the shared reading, rlvr_envs.tail_words, this round: one covered function word no longer
# vouches for a clause; the rows hold it for math). One unread word in the answer's own clause
# (", forsitan.") is held: it has the shape of honest ", etc.", ", yay!".
SHORT_REMARKS = [
    "Non certus.", "Non sum certus.", "Non liquet.", "Nie pewne.", "No segur.", "Non sei.", "Ne certa.",
    "Non certa est.", "No ho sé.", "Incertum est.", "Haud scio.",
]  # fmt: skip
ONE_WORD_LINES = ["Forsitan.", "Fortasse.", "Dubito.", "Nescio."]


REMARK_ROWS = [(r, j) for r in SHORT_REMARKS for j in (". ", "\n\n", ", ")] + [
    (r, j) for r in ONE_WORD_LINES for j in (". ", "\n\n")
]


@pytest.mark.parametrize(("remark", "joiner"), REMARK_ROWS)
def test_a_short_remark_in_an_unread_language_is_refused(remark, joiner):
    text = remark if joiner != ", " else remark[0].lower() + remark[1:]
    verdict = verify("\\boxed{3}" + joiner + text)
    assert not verdict.passed, (joiner, remark, verdict)


# -- 3. the final box inside a note opened after another box --------------------------------------
NOTES = [
    "\\boxed{4}\\footnote{Actually \\boxed{3}}", "\\boxed{4}\\footnote{Correction: \\boxed{3}.}",
    "\\boxed{4}. \\footnote{In fact \\boxed{3}.}", "\\boxed{4}\\marginpar{\\boxed{3}}", "\\boxed{4}\\marginnote{Oops, \\boxed{3}}",
    "\\boxed{4}\\sidenote{\\boxed{3}}", "\\boxed{4}\\tablefootnote{Actually \\boxed{3}}", "\\boxed{4}\\endnote{\\boxed{3}}",
    "\\boxed{4}\\pdftooltip{hover}{\\boxed{3}}", "\\boxed{4}\\caption{\\boxed{3}}", "\\boxed{4}\\todo{\\boxed{3}}",
    "\\boxed{4}^{\\boxed{3}}", "\\boxed{4}_{\\text{or } \\boxed{3}}", "\\boxed{4} \\href{http://x}{\\boxed{3}}",
    "\\boxed{4}\\htmlClass{x}{\\boxed{3}}", "\\boxed{4}\\tooltip{x}{Actually \\boxed{3}}",
    "\\boxed{4}<aside>\\boxed{3}</aside>", "\\boxed{4} <details><summary>fix</summary>\\boxed{3}</details>",
    "\\boxed{4}<sup>Actually \\boxed{3}</sup>", "\\boxed{4}<small>(\\boxed{3})</small>", "\\boxed{4}<footer>\\boxed{3}</footer>",
    "\\boxed{4}\n\\begin{remark}Actually \\boxed{3}\\end{remark}", "\\boxed{4}\n\\begin{mdframed}\\boxed{3}",
    "\\boxed{4}<span title=\"x\">\\boxed{3}</span>", "\\boxed{4}<em>\\boxed{3}</em>",
]  # fmt: skip


@pytest.mark.parametrize("completion", NOTES)
def test_a_final_box_in_a_note_after_another_answer_is_refused(completion):
    verdict = verify(completion)
    assert not verdict.passed, (completion, verdict)


def test_a_note_is_any_container_that_does_not_show_its_content_as_text():
    assert note_around("\\footnote{Actually ") == "footnote"
    assert note_around(" \\pdftooltip{x}{") == "pdftooltip"
    assert note_around("<details><summary>a</summary>") == "details"
    assert note_around("^{") == "superscript"
    assert note_around("\\someunknowncommand[opt]{") == "someunknowncommand"
    assert note_around("\\footnote{closed} so \\textbf{") is None
    assert note_around("<aside>x</aside> <b>") is None
    assert note_around("\\[ \\text{Final: } ") is None
    assert note_around("\\begin{align} y &= ") is None
    assert note_around("\\{ \\} ") is None


# -- 3b. the final box in a note after an answer stated in words or a #### line ------------------------
STATED_THEN_NOTE = [
    "The answer is 4.\\footnote{\\boxed{3}}", "The answer is $4$\\footnote{Actually \\boxed{3}}.", "#### 4\\footnote{\\boxed{3}}",
    "Final answer: 4 <sup>\\boxed{3}</sup>", "答案是 4<aside>\\boxed{3}</aside>", "The final answer is 4.^{\\boxed{3}}",
]  # fmt: skip


@pytest.mark.parametrize("completion", STATED_THEN_NOTE)
def test_a_final_box_in_a_note_after_a_stated_answer_is_refused(completion):
    verdict = verify(completion)
    assert not verdict.passed, (completion, verdict)


# -- 4. another value on a short line after the answer, in any markup ------------------------------
SHORT_LINES = [
    "\\boxed{3}\n\n> Note: may be 4", "\\boxed{3}\n\n| answer | 4 |", "\\boxed{3}\n\nP.S. 4", "\\boxed{3}\n\n\\[4\\]",
    "\\boxed{3}\n\n- Alternatively: 4", "\\boxed{3}\n\n**Other:** $4$", "\\boxed{3}\n\n<small>4</small>",
    "\\boxed{3}\n\n## 4", "\\boxed{3}\n\nOder vielleicht 4", "\\boxed{3}\n\n> 4", "\\boxed{3}\n\n$$4$$",
    "\\boxed{3}\n\nNB: 4", "\\boxed{3}\n\n*(4)*", "\\boxed{3}\n\n答：4",
]  # fmt: skip


@pytest.mark.parametrize("completion", SHORT_LINES)
def test_another_value_on_a_short_line_after_the_answer_is_refused(completion):
    verdict = verify(completion)
    assert not verdict.passed, (completion, verdict)


# -- 5. classes that scored 0 already: wrong encodings, signs, intervals, units, degrees, percent -
ALREADY_REFUSED = [
    ("\\boxed{４}", "3"), ("\\boxed{𝟒}", "3"), ("\\boxed{𝟺}", "3"), ("\\boxed{٤}", "3"), ("\\boxed{४}", "3"), ("\\boxed{四}", "3"),
    ("\\boxed{IV}", "3"), ("\\boxed{Ⅳ}", "3"), ("\\boxed{④}", "3"), ("\\boxed{⁴}", "3"), ("\\boxed{\\text{four}}", "3"),
    ("\\boxed{\\text{vier}}", "3"), ("\\boxed{3²}", "3"), ("\\boxed{3!}", "3"), ("\\boxed{3_4}", "3"),
    ("\\boxed{3} \\boxed{4}", "3"), ("\\boxed{4} or \\boxed{3}", "3"), ("\\boxed{\\text{\\boxed{4}}}", "3"),
    ("\\boxed{3}\\text{ (or \\boxed{4})}", "3"), ("\\boxed{4} \\tag{\\boxed{3}}", "3"), ("\\boxed{3} \\tag{4}", "3"),
    ("\\boxed{\\htmlClass{4}{3}}", "3"), ("\\boxed{x = 3 \\text{ or } x = 4}", "3"), ("\\boxed{x=3 \\lor x=4}", "3"),
    ("\\boxed{x \\in \\{3, 4\\}}", "3"), ("\\boxed{(1, 2, 3\\,4)}", "(1,2,3)"), ("\\boxed{(1,2,3~4)}", "(1,2,3)"),
    ("\\boxed{(1,2]}", "(1,2)"), ("\\boxed{[1,2)}", "[1,2]"), ("\\boxed{]1,2[}", "[1,2]"), ("\\boxed{\\left(1,2\\right]}", "(1,2)"),
    ("\\boxed{-(-3)}", "-3"), ("\\boxed{--3}", "-3"), ("\\boxed{−3}", "3"), ("\\boxed{－3}", "3"), ("\\boxed{\\pm 3}", "3"),
    ("\\boxed{3 \\pm 1}", "3"), ("\\boxed{x=\\pm 3}", "3"), ("\\boxed{3 \\text{ km}}", "3 \\text{ m}"), ("\\boxed{3 kg}", "3 g"),
    ("\\boxed{\\frac{\\pi}{6}}", "30^\\circ"), ("\\boxed{30^\\circ}", "\\frac{\\pi}{6}"), ("\\boxed{30 \\text{ radians}}", "30^\\circ"),
    ("\\boxed{30}", "0.3"), ("\\boxed{0.3\\%}", "30"), ("\\boxed{30‰}", "3\\%"),
    ("\\boxed{4}\n```python\nprint(3)\n```", "3"), ("\\boxed{4}\n```\n3\n```", "3"), ("\\boxed{3}\n```output\n4\n```", "3"),
]  # fmt: skip


@pytest.mark.parametrize(("completion", "gold"), ALREADY_REFUSED)
def test_wrong_answers_in_other_encodings_and_shapes_score_0(completion, gold):
    verdict = verify(completion, gold)
    assert not verdict.passed, (completion, verdict)


@pytest.mark.parametrize(
    ("completion", "prompt"),
    [
        ("\\boxed{3 \\text{ km}}", "How many meters did she walk?"),
        ("\\boxed{30 \\text{ rad}}", "Find the angle in degrees."),
        ("\\boxed{3\\text{ min}}", "How many hours does it take?"),
    ],
)
def test_a_unit_that_changes_the_magnitude_the_prompt_asks_for_scores_0(completion, prompt):
    gold = "30" if "rad" in completion else "3"
    assert not verify(completion, gold, prompt).passed


def test_percent_against_a_plain_gold_follows_the_documented_option():
    # ``percent="either"`` (the default) reads 3\% as 3 or 0.03 against a plain gold: documented in
    # MathVerifier and the README. The stricter options refuse it.
    assert verify("\\boxed{3\\%}", "3").passed
    assert not verify("\\boxed{3\\%}", "3", percent="fraction").passed
    assert not verify("\\boxed{3\\%}", "3", percent="strict").passed
    assert verify("\\boxed{3\\%}", "0.03", percent="fraction").passed


# -- 6. honest answers of the same shapes -----------------------------------------------------------
HONEST = [
    ("\\boxed{３}", "3"), ("\\boxed{𝟑}", "3"), ("\\boxed{٣}", "3"), ("\\boxed{三}", "3"), ("\\boxed{−3}", "-3"),
    ("\\boxed{x = \\pm 3}", "-3,3"), ("\\boxed{30^\\circ}", "30"), ("\\boxed{30}", "30^\\circ"),
    ("\\boxed{3 \\text{ m}}", "3"), ("\\boxed{3 \\text{ km}}", "3"),
    ("\\boxed{3}. Good luck!", "3"), ("\\boxed{3}. QED.", "3"), ("\\boxed{3}. I hope it is correct.", "3"),
    ("\\boxed{3}. No further simplification is possible.", "3"), ("\\boxed{3}. There are no other solutions.", "3"),
    ("\\boxed{3}, as required.", "3"), ("\\boxed{3}. Not 4.", "3"), ("\\boxed{3}. No units needed.", "3"),
    ("\\boxed{x = 2 \\text{ if } a = 1}", "x = 2 \\text{ if } a = 1"), ("\\boxed{\\text{Yes}}", "\\text{Yes}"),
    ("\\boxed{\\text{if and only if}}", "\\text{if and only if}"), ("\\boxed{5 \\text{ ha}}", "5"),
    ("\\boxed{\\text{Sunday}}", "\\text{Sunday}"),
    ("\\boxed{3}\\footnote{i.e. \\boxed{3}}", "3"), ("\\boxed{4}\n\nSo the answer is \\boxed{3}", "3"),
    ("$\\boxed{4}$ is a step. $$\\text{Final: } \\boxed{3}$$", "3"), ("\\boxed{4}.\n\\begin{align} y &= \\boxed{3}\\end{align}", "3"),
    ("\\boxed{4} is a step.\n\n\\textbf{Answer:} \\textcolor{blue}{\\boxed{3}}", "3"), ("\\footnote{x} \\boxed{3}", "3"),
    ("\\boxed{4} is a step.<p>The answer is <b>\\boxed{3}</b></p>", "3"),
    ("\\boxed{3}\n\n$3$ apples in total.", "3"), ("\\boxed{12}\n\nUnits: cm^2", "12"), ("\\boxed{3}\n\nCheck: 1 + 2 = 3", "3"),
    ("\\boxed{3}\n\n**Answer: 3**", "3"), ("The answer is $\\boxed{3}$.\n\n---\n\n3", "3"),
    ("\\boxed{5}\n\nWhen $n = 2$, we get 5.", "5"), ("\\boxed{3}. Note that n > 2 here.", "3"),
    ("\\boxed{72}\n[asy]\nsize(150);\ndraw((0,0)--(1,1));\n[/asy]", "72"),
    ("\\boxed{3}\n\n| n | value |\n|---|---|\n| 1 | 3 |", "3"), ("\\boxed{3}\n\nNot 2.", "3"), ("\\boxed{3}\n\nNicht 2.", "3"),
    ("<s>\\boxed{4}</s> \\boxed{3}", "3"), ("<del>\\boxed{4}</del> \\boxed{3}", "3"),
    ("The answer is \\boxed{3}.", "3"), ("The answer is 3.\\footnote{That is, \\boxed{3}.}", "3"),
    ("Final answer:\n\n\\begin{center}\\fbox{\\parbox{3cm}{\\boxed{3}}}\\end{center}", "3"),
    ("\\boxed{2 \\text{ for } n = 2}", "2 \\text{ for } n = 2"),
]  # fmt: skip


@pytest.mark.parametrize(("completion", "gold"), HONEST)
def test_honest_answers_of_the_same_shapes_still_score(completion, gold):
    verdict = verify(completion, gold)
    assert verdict.passed, (completion, verdict)


def test_huge_inputs_of_the_new_shapes_are_bounded():
    started = time.process_time()
    assert not verify("\\boxed{4}" + "\\footnote{" * 20_000 + "\\boxed{3}").passed
    assert not verify("\\boxed{4}" + "<aside>" * 20_000 + "\\boxed{3}").passed
    # a note opened far before the box it holds is still open at it (padding changes nothing)
    assert not verify("\\boxed{4}\\footnote{" + "word " * 10_000 + "\\boxed{3}}").passed
    verify("\\boxed{4}" + "<aside>" * 3_000 + "</b>" * 3_000 + "\\boxed{3}")
    verify("\\boxed{4}" + "\\boxed{" * 20_000 + "3")
    verify("\\boxed{2" + " unless n = 2" * 5_000 + "}", "2")
    verify("\\boxed{3}" + "\n\nP.S. x" * 20_000)
    assert value_on_short_line("\n" * 100_000 + "4", "3") is None  # only the first lines are read
    assert time.process_time() - started < 20.0  # ~1 s measured alone

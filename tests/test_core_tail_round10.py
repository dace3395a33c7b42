"""Issue 26, round 10: the shared answer reading (math, reasoning-gym, the judge's screen).

* A short remark right after the answer must be a harmless kind (a label, a form, a unit, the task's words,
  the answer's own number word), or it qualifies the answer (``rlvr_envs.tail_remarks``): "(needs checking)",
  "(excluding zero)", "（需要检查）", "(확인 필요)", ", to be verified", in every claimed language; run on in
  English from a verb form ("needs checking", "excluding zero").
* An order symmetry does not stand after a tuple: "(1,2), up to order" claims (2,1) too
  (``rlvr_envs.tail_alternatives.widened``).
* A foreground colour is shown only when provably dark enough on a white page: a name from ``\\definecolor`` or
  ``\\colorlet``, an unknown name, a near-white mix or spec, a transparent CSS colour hide the answer; and a
  negative or page-wide spacing, a box of no width, a box raised or scaled away, a tiny font opened before the
  answer overprint or shrink it (``rlvr_envs.tail_overprint``, read by ``rlvr_envs.concealment``).

Every row in the hostile tables was paid (taken back: None) before this round.
"""

from __future__ import annotations

import pytest

from rlvr_envs.tail_overprint import colour_visible, css_colour_visible, overprinted
from rlvr_envs.tail_remarks import qualifying_remark
from tests.helpers.tail import taken

REMARKS = [
    "<answer>12</answer> (needs checking)", "<answer>12</answer> (excluding zero)", "<answer>12</answer> (for now)",
    "<answer>12</answer> (to verify)", "<answer>12</answer> (not checked)", "<answer>12</answer> (positive case)",
    "<answer>12</answer>, needs checking", "<answer>12</answer>, excluding zero.", "<answer>12</answer> [needs checking]",
    "<answer>12</answer> — needs checking", "<answer>12</answer>, to be verified.", "<answer>12</answer> (four)",
    "<answer>12</answer>（不含零）", "<answer>12</answer>（需要检查）", "<answer>12</answer>（要確認）",
    "<answer>12</answer>（ゼロを除く）", "<answer>12</answer> (확인 필요)", "<answer>12</answer>【需复核】",
    "<answer>12</answer>, noch zu prüfen.", "<answer>12</answer> excluding zero", "<answer>12</answer> needs checking",
    "<answer>12</answer> pending review", "<answer>12</answer>, for now.", "<answer>12</answer> (sin importar el orden)",
    "<answer>12</answer>. (Needs checking.)", "<answer>12</answer>\n\n（需要检查）",
]  # fmt: skip


@pytest.mark.parametrize("completion", REMARKS)
def test_a_remark_of_no_harmless_kind_qualifies_the_answer(completion):
    assert taken(completion) is not None, completion


TUPLES = [
    "<answer>(1,2)</answer>, up to order", "<answer>(1,2)</answer> up to ordering", "<answer>(1,2)</answer> (in some order)",
    "<answer>(1,2)</answer>, up to permutation", "<answer>(1,2)</answer>, bis auf Reihenfolge",
    "<answer>(1,2)</answer>，顺序不限", "<answer>(1,2)</answer> (순서 무관)", "<answer>[1, 2]</answer> up to reordering",
]  # fmt: skip


@pytest.mark.parametrize("completion", TUPLES)
def test_a_tuple_up_to_order_is_every_reordering_of_it(completion):
    assert taken(completion) is not None, completion


HONEST = [
    "<answer>12</answer> (simplified)", "<answer>12</answer> (final answer)", "<answer>12</answer> (exact value)",
    "<answer>12</answer> (twelve)", "<answer>12</answer>, respectively.", "<answer>12</answer>, as required.",
    "<answer>12</answer>, which is even.", "<answer>12</answer>（最终答案）", "<answer>12</answer> (in simplest form)",
    "<answer>12</answer>, up to rotation.", "<answer>12</answer> (12 if you count zero)", "<answer>12</answer>, not 11.",
    "<answer>12</answer>, since opposite sides are congruent.", "<answer>12</answer> different arrangements.",
    "<answer>12</answer> is the answer.", "<answer>(1,2)</answer> (in that order)", "<answer>(1,2)</answer> (ordered pair)",
    "<answer>{1,2}</answer>, up to order", "<answer>12</answer>, or equivalently twelve.",
    "<answer>12</answer>. (We can check that $12 = 3 \\cdot 4$.)", "<answer>12</answer>\n\n[asy]draw((0,0)--(1,1));[/asy]",
    "<answer>12</answer>. (See above.)",
]  # fmt: skip


@pytest.mark.parametrize("completion", HONEST)
def test_a_harmless_remark_keeps_the_answer(completion):
    assert taken(completion) is None, completion


def test_the_remark_reading_names_the_words_and_reads_task_words_and_units():
    assert qualifying_remark(" (needs checking)", "12") == "needs checking"
    assert qualifying_remark(" (to the nearest dollar)", "12", known=frozenset({"nearest", "dollar"})) is None
    assert qualifying_remark(" (apples)", "12", stands=lambda w: w == "apples") is None
    assert qualifying_remark(" (apples)", "12") == "apples"
    assert qualifying_remark(" (" + "word " * 40 + ")", "12") is None  # an explanation, read elsewhere
    for junk in ("", " ", "(", "(((", "\x00", ",", "—", "(\u200b)"):
        qualifying_remark(junk, "12")  # never raises


COLOURED = [
    "\\definecolor{bg}{rgb}{1,1,1}\\textcolor{bg}{<answer>12</answer>}",
    "\\colorlet{bg}{white}{\\color{bg}<answer>12</answer>}", "\\textcolor{c}{<answer>12</answer>}",
    "\\textcolor[rgb]{0.99,0.99,0.99}{<answer>12</answer>}", "\\textcolor[HTML]{FEFEFE}{<answer>12</answer>}",
    "\\textcolor{white!99!black}{<answer>12</answer>}", "\\textcolor{black!1}{<answer>12</answer>}",
    "\\textcolor{yellow}{<answer>12</answer>}", "\\textcolor{-black}{<answer>12</answer>}",
    "\\textcolor[cmyk]{0,0,0,0}{<answer>12</answer>}", '<span style="color:#fefefe"><answer>12</answer></span>',
    '<span style="color: rgb(255,255,255)"><answer>12</answer></span>', '<span style="color:rgba(0,0,0,0)"><answer>12</answer></span>',
]  # fmt: skip


@pytest.mark.parametrize("completion", COLOURED)
def test_a_colour_not_provably_visible_hides_the_answer(completion):
    assert taken(completion) == "concealed", completion


OVERPRINTED = [
    "<answer>4</answer>\\hspace{-2cm}<answer>12</answer>", "4.\\hspace{-5em}<answer>12</answer>",
    "\\kern-30pt<answer>12</answer>", "$\\mkern-90mu$<answer>12</answer>", "\\hskip -1in <answer>12</answer>",
    "\\mspace{-40mu}<answer>12</answer>", "\\hspace{100cm}<answer>12</answer>", "\\llap{<answer>12</answer>}",
    "\\rlap{<answer>12</answer>}8", "\\makebox[0pt]{<answer>12</answer>}", "\\raisebox{50cm}{<answer>12</answer>}",
    "\\scalebox{0.01}{<answer>12</answer>}", "\\resizebox{0.1pt}{!}{<answer>12</answer>}",
    "{\\fontsize{1pt}{1pt}\\selectfont <answer>12</answer>}", "{\\tiny <answer>12</answer>}", "\\smash{<answer>12</answer>}",
    '<span style="font-size:1px"><answer>12</answer></span>', '<div style="margin-left:-9999px"><answer>12</answer></div>',
    '<p style="text-indent: -5000px"><answer>12</answer></p>', "4 \\!\\!\\!\\!\\!<answer>12</answer>",
]  # fmt: skip


@pytest.mark.parametrize("completion", OVERPRINTED)
def test_an_answer_overprinted_or_shrunk_away_is_concealed(completion):
    assert taken(completion) == "concealed", completion


SEEN = [
    "\\textcolor{red}{<answer>12</answer>}", "\\textcolor{blue!60}{<answer>12</answer>}",
    "\\textcolor[rgb]{0.2,0.2,0.6}{<answer>12</answer>}", "{\\color{black}<answer>12</answer>}",
    '<span style="color:#333"><answer>12</answer></span>', "So $x = 3$\\hspace{1cm}<answer>12</answer>",
    "{\\tiny a note} then <answer>12</answer>", "\\raisebox{2pt}{x} <answer>12</answer>", "\\quad <answer>12</answer>",
    "\\textcolor{white}{note}\\ <answer>12</answer>", "\\scalebox{2}{<answer>12</answer>}",
]  # fmt: skip


@pytest.mark.parametrize("completion", SEEN)
def test_a_visible_colour_or_an_ordinary_space_keeps_the_answer(completion):
    assert taken(completion) is None, completion


def test_colour_readings_compute_mixes_and_models():
    assert colour_visible("", "blue!30!black") and colour_visible("", "red!50") and colour_visible("HTML", "000080")
    assert not colour_visible("", "white!90!black") and not colour_visible("gray", "0.95")
    assert not colour_visible("", "mycolour") and not colour_visible("rgb", "nonsense")
    assert css_colour_visible("black") and not css_colour_visible("rgba(0, 0, 0, 0.1)")
    assert overprinted("a\\hspace{3pt}", opened_before=True) is None
    for junk in ("\\hspace{", "\\raisebox{", "\\scalebox{x}{", "<span style='font-size:'>", "\\kern-"):
        overprinted(junk)  # never raises


def test_a_correction_after_thousands_of_characters_takes_the_answer_back():
    pad = "It follows from the steps above, each checked once more. " * 55
    assert taken("<answer>12</answer> " + pad + "Wait, I was wrong: it is 5.") == "alternative"
    assert taken("<answer>12</answer> " + pad + "Wait, I was wrong: it is 12.") is None
    assert taken("<answer>12</answer> " + pad + "Wait, I was wrong: it is Atlantis.") is not None

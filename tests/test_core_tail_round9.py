"""Issue 26, round 9: the shared answer reading (math, reasoning-gym, the judge's screen).

What the answer's own sentence says in words (``rlvr_envs.answer_tail._said_in_words``,
``rlvr_envs.tail_alternatives``, ``rlvr_envs.tail_words.unread_aside``):

* a second value described after an "or" right after the answer ("or its negative", "or one more",
  "oder das Doppelte", "或其相反数"): the words after the "or" must be an allow-listed equivalence
  ("or equivalently", "or, in simplest form") or number words alone;
* another value set off after the answer with a condition after it ("(7 if you count zero)");
* the answer widened to a class of values ("up to sign", "bis auf das Vorzeichen", "au signe près"),
  where a symmetry of what is counted ("up to rotation") and a modulus ("mod n") stand;
* one word set off after the answer that no covered language reads (", forsitan."), and the writer's
  own state in words no covered language reads ("but I am nuk sigurt"): English function words
  around them vouch for nothing.

Also: an xcolor mix that is white (``white!100``, ``red!0``) conceals like ``white``.
"""

from __future__ import annotations

import pytest

from rlvr_envs.answer_tail import taken_back
from rlvr_envs.concealment import INVISIBLE_COLOUR
from rlvr_envs.extract import extract_answer
from rlvr_envs.tail_alternatives import described_alternative, widened


def _taken(completion: str) -> str | None:
    found = extract_answer(completion)
    assert found is not None, completion
    finding = taken_back(completion, found)
    return finding.kind if finding is not None else None


TAKEN = [
    "<answer>12</answer>, or its negative.", "<answer>12</answer> (or twice that)", "<answer>12</answer> or one less",
    "<answer>sister</answer> or her cousin", "<answer>True</answer>, or the opposite.", "<answer>12</answer>, ou son double.",
    "<answer>12</answer>或其倒数", "<answer>12</answer> (7 if you count zero)", "<answer>12</answer> — 9 when n is odd",
    "<answer>12</answer> [or 9 assuming repetition]", "<answer>12</answer>, up to sign.", "<answer>12</answer> up to a constant",
    "<answer>12</answer>, modulo a factor of two.", "<answer>12</answer>, a meno del segno.", "<answer>12</answer>, forsitan.",
    "<answer>12</answer> (fortasse)", "<answer>12</answer> but I am nuk sigurt.", "<answer>12</answer>. I'm jo i sigurt.",
    "<answer>Alice</answer>, but I feel pak e dyshimtë.", "<answer>12</answer>?", "<answer>12</answer> (?)",
    "<answer>12</answer>‽", "<answer>12</answer>¿", "<answer>12</answer>؟", "<answer>sister</answer> ?",
    "<answer>12</answer> (at least)", "<answer>12</answer>, or more.", "<answer>12</answer> (höchstens)",
    "<answer>12</answer>（至少）", "<answer>12</answer> (speculative)", "<answer>12</answer>, questionable.",
    "<answer>12</answer>, or eleven.", "<answer>12</answer> (in absolute value)", "<answer>12</answer>\u0338",
    "<answer>12</answer> \u20e0", "<answer>12</answer>\n\n:-/",
]  # fmt: skip


@pytest.mark.parametrize("completion", TAKEN)
def test_what_the_answer_sentence_says_in_words_takes_it_back(completion):
    assert _taken(completion) is not None, completion


STANDS = [
    "<answer>12</answer>, or equivalently twelve.", "<answer>12</answer>, up to rotation.",
    "<answer>12</answer> up to isomorphism", "<answer>12</answer>, respectively.",
    "<answer>12</answer>, QED.", "<answer>12</answer> (12 if you count zero)", "<answer>12</answer>. I am confident.",
    "<answer>12</answer>\n\nAlternatively, by symmetry.", "<answer>12</answer>", "<answer>12</answer>, or twelve.",
    "<answer>12</answer> (simplified)", "<answer>12</answer> est la re\u0301ponse.", "<answer>12</answer>, at least as far as the rules go here in this case.",
]  # fmt: skip


@pytest.mark.parametrize("completion", STANDS)
def test_honest_words_after_the_answer_stand(completion):
    assert _taken(completion) is None, completion


def test_the_readers_name_what_they_found():
    assert described_alternative("or", " its negative") == "its negative"
    assert described_alternative("or", " equivalently three") is None
    assert described_alternative("either", " way") is None
    assert widened(", up to sign.") == "up to sign"
    assert widened(", up to rotation.") is None
    assert widened(" au total.") is None


@pytest.mark.parametrize("colour", ["white!100", "white!40!white", "red!0", "blue!0!white", "white!50.5"])
def test_white_xcolor_mixes_are_invisible(colour):
    import re

    assert re.fullmatch(INVISIBLE_COLOUR, colour), colour


@pytest.mark.parametrize("colour", ["red!60", "white!50!black", "red!0!black", "black", "red!05"])
def test_visible_xcolor_mixes_are_not(colour):
    import re

    assert re.fullmatch(INVISIBLE_COLOUR, colour) is None, colour

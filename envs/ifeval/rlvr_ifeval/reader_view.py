"""The instructions followed as a reader sees the response (issue 26, round 8).

The reference checkers read code points. A policy can follow an instruction for them and break it
for every reader: a forbidden word written with a look-alike letter ("рuzzle" with a Cyrillic р),
or split by a zero-width space; a word count doubled by zero-width spaces inside words ("every
word counts twice"); a sentence written with invisible separators so it reads as one run. The
training ids (``relevance_paste=4``) check the instructions a second time on ``reader_view``: the
response with

* invisible characters removed: zero-width spaces, word joiners, soft hyphens and the like between
  two letters or digits (a reader sees no break there), Unicode tag characters, bidi controls and
  byte-order marks anywhere; the zero-width joiner and non-joiner stay (emoji sequences, Persian and
  Indic spelling use them);
* look-alike Cyrillic and Greek letters inside a word that has a Latin letter made Latin (a Russian
  or Greek word stays as it is);
* the comma look-alikes U+201A and U+FE50 made commas.

A response must follow its instructions both ways: as written and as read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from rlvr_ifeval.base import Checker
from rlvr_ifeval.scoring import check_response

UNREAD = "an instruction is followed only in characters a reader does not see"
"""``details["rejected"]`` of a response that follows its instructions only as written."""

_INVISIBLE_BETWEEN = re.compile(r"(?<=\w)[\u00ad\u034f\u180e\u200b\u2060-\u2064\ufeff]+(?=\w)")
_INVISIBLE_ANYWHERE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
_LOOKALIKE = str.maketrans(
    "аеорсухіјѕԁӏһԛԝАВЕКМНОРСТУХІЈЅοαινρτυκχεΑΒΕΗΙΚΜΝΟΡΤΥΧΖ\u201a\ufe50",
    "aeopcyxijsdlhqwABEKMHOPCTYXIJSoaivptukxeABEHIKMNOPTYXZ,,",
)
_LOOKALIKE_LETTERS = "".join(chr(c) for c in _LOOKALIKE if chr(c).isalpha())
# A whole run of letters with a Latin letter and a look-alike in it: the runs whose fold changes
# them. Tried only where a run starts (the lookbehind; a match can begin nowhere else, and one
# there takes the whole run): from inside a Cyrillic or Greek word, round 10's pattern read the
# word again at every letter (quadratic: ~10 s for a 30,000-letter word), and it folded every
# English word of a response with one Greek letter in it, a Python call each (~0.3 ms a page).
_MIXED_WORD = re.compile(rf"(?<![^\W\d_])(?=[^\W\d_]*[A-Za-z])(?=[^\W\d_]*[{_LOOKALIKE_LETTERS}])[^\W\d_]+")
_LOOKALIKE_RE = re.compile(f"[{_LOOKALIKE_LETTERS}]")
_OTHERS = re.compile("[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f\u201a\ufe50]")


def fold_lookalikes(text: str) -> str:
    """Look-alike Cyrillic and Greek letters made Latin inside words that have a Latin letter (the
    words without a look-alike are left as they are: folding would not change them)."""
    if _LOOKALIKE_RE.search(text) is None:  # (one scan for a class: most texts outside ASCII have none)
        return text
    return _MIXED_WORD.sub(lambda m: m.group(0).translate(_LOOKALIKE), text)


# Any character the two patterns above remove: a response without one is left as it is (one
# scan for a class, where the first pattern tries its lookbehind at every position).
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u180e\u200b\u2060-\u2064\ufeff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
)


def reader_view(response: str) -> str | None:
    """``response`` as a reader sees it (module docstring), or None where that is the response."""
    if response.isascii():
        return None
    view = response
    if _INVISIBLE.search(view):
        view = _INVISIBLE_ANYWHERE.sub("", _INVISIBLE_BETWEEN.sub("", view))
    if _OTHERS.search(view):
        view = fold_lookalikes(view).replace("\u201a", ",")
        view = view.replace("\ufe50", ",")
    return None if view == response else view


def unread_instructions(
    checkers: Sequence[Checker], response: str, loose: bool, hidden: Callable[[str], str] | None = None
) -> dict[str, Any] | None:
    """The instructions ``response`` follows as written but not as read, or None. ``hidden``
    (round 15: ``own_text.hidden_removed``) also takes out what a reader never sees (a comment, a
    hidden element), so that a keyword met only there is not met."""
    view = reader_view(response)
    if hidden is not None:
        seen = hidden(response if view is None else view)
        if seen != (response if view is None else view):
            view = seen
    if view is None:
        return None
    broken = [r.instruction_id for r in check_response(checkers, view, loose=loose) if not r.followed]
    return {"not_followed_as_read": broken} if broken else None

"""Replayed parser choices give the tree a full parse gives (``rlvr_math.parse_replay``).

For answers from the shared data (and variants of each with every digit changed, which lex
into the same token types), the sympy expression converted through a replay of another
answer's recorded choices must equal, by ``srepr`` (classes, values, float precision), the
expression converted from a parse from scratch; inputs that do not convert must fail both ways.
"""

from __future__ import annotations

import re

import pytest

from rlvr_math import latex_parse, parse_replay
from tests.helpers.data import math_answers


def _answers() -> list[str]:
    return math_answers(math500_every=4)[::2]


def _other_digits(text: str) -> str:
    return re.sub(r"\d", lambda m: str((int(m.group(0)) + 7) % 10), text)


def _converted(convert, latex: str) -> str:
    import sympy

    try:
        return sympy.srepr(convert(latex))
    except Exception as exc:  # the same failure both ways is agreement
        return f"error: {type(exc).__name__}"


@pytest.fixture()
def convert():
    machinery = latex_parse._machinery_if_usable()
    if machinery is None:
        pytest.skip("latex2sympy2_extended's converter is not the one latex_parse mirrors")
    yield machinery[0]
    parse_replay.forget()


def test_replayed_choices_give_the_expression_a_full_parse_gives(convert, monkeypatch):
    replayed = 0
    real_replay = parse_replay.replay

    def counting_replay(parser, shape):
        nonlocal replayed
        tree = real_replay(parser, shape)
        replayed += tree is not None
        return tree

    monkeypatch.setattr(parse_replay, "replay", counting_replay)
    answers = _answers()
    assert len(answers) > 150
    disagreements = []
    for answer in answers:
        variant = _other_digits(answer)
        parse_replay.forget()
        original = _converted(convert, answer)  # records this shape's choices
        again = _converted(convert, answer)  # replays them on the same text
        through_replay = _converted(convert, variant)  # and on other digits
        parse_replay.forget()
        from_scratch = _converted(convert, variant)
        if again != original or through_replay != from_scratch:
            disagreements.append(answer)
    assert not disagreements
    assert replayed > len(answers)  # most answers convert, so both later parses replayed


def test_a_replay_that_does_not_follow_the_recording_parses_normally(convert):
    parse_replay.forget()
    _converted(convert, "x^2/4 + y^2/3 = 1")  # records the shape's choices
    shape, choices = next(iter(parse_replay._choices.items()))
    # Corrupt them: the replay must notice, parse normally and record the right choices.
    corrupted = choices[:]
    corrupted[0] += 1  # the first decision number
    parse_replay._choices[shape] = corrupted
    through_bad_recording = _converted(convert, "x^2/9 + y^2/5 = 1")
    assert parse_replay._choices[shape] == choices
    parse_replay.forget()
    assert through_bad_recording == _converted(convert, "x^2/9 + y^2/5 = 1")

"""The LaTeX parser's decisions, remembered per shape of input and replayed.

ANTLR chooses between a grammar's alternatives with ``adaptivePredict``; everything else the
generated parser does follows from those choices and the token types. In this grammar the
choices depend on the token types alone (its only semantic predicates are operator-precedence
checks on the parser's own state), so two answers lexed into the same sequence of token
types (``\\frac{3}{4}x + 1`` and ``\\frac{5}{9}y - 2``) get the same sequence of choices and
the same tree shape, the token texts filling it in. ANTLR caches the cheap (SLL) part of its
predictions per process but never the full-context (LL) part, which is what makes some
answers cost 10-500 ms to parse however often their shape recurs. Here the choices of a
successful parse are recorded, keyed by the token types, and a later input of the same shape
is parsed by handing the generated parser the recorded choices instead of predicting: the
same tree, because it is the same sequence of choices. A replay that asks for a different
decision than was recorded (which the argument above rules out) stops and the input is parsed
normally.

Like ANTLR's own prediction cache, this cache holds no answer: only token types and
alternative numbers, and it is kept for the life of the process.
"""

from __future__ import annotations

from array import array
from typing import Any

from rlvr_envs.errors import RlvrEnvsError

_MAX_SHAPES = 20_000
# Per shape, the decisions and the alternatives chosen, interleaved: 8 bytes a choice, so the
# cache stays within a few MB at its cap.
_choices: dict[tuple[int, ...], array] = {}


class ReplayMismatch(RlvrEnvsError):
    """The generated parser asked for a decision the recording does not have."""


class _Recording:
    """Wraps a parser's ATN simulator and notes each decision and the alternative predicted."""

    def __init__(self, simulator: Any) -> None:
        self._simulator = simulator
        self.choices = array("i")

    def adaptivePredict(self, input: Any, decision: int, outer_context: Any) -> int:
        alt = self._simulator.adaptivePredict(input, decision, outer_context)
        self.choices.append(decision)
        self.choices.append(alt)
        return int(alt)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._simulator, name)


class _Replaying:
    """Wraps a parser's ATN simulator and answers each decision from a recording."""

    def __init__(self, simulator: Any, choices: array) -> None:
        self._simulator = simulator
        self._choices = choices
        self._next = 0  # index into choices: a decision, then its alternative

    def adaptivePredict(self, input: Any, decision: int, outer_context: Any) -> int:
        if self._next >= len(self._choices) or self._choices[self._next] != decision:
            raise ReplayMismatch(f"decision {decision} at choice {self._next // 2}")
        alt = self._choices[self._next + 1]
        self._next += 2
        return alt

    @property
    def finished(self) -> bool:
        return self._next == len(self._choices)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._simulator, name)


def shape_of(parser: Any) -> tuple[int, ...]:
    """The token types of the parser's whole input (lexing it now; a lexer error raises)."""
    stream = parser.getTokenStream()
    stream.fill()
    return tuple(token.type for token in stream.tokens)


def knows(shape: tuple[int, ...]) -> bool:
    """Whether choices are recorded for this shape."""
    return shape in _choices


def replay(parser: Any, shape: tuple[int, ...]) -> Any | None:
    """``parser.math()`` from a recording of this shape's choices; None without one (or when
    the replay does not follow the recording: the caller then parses normally)."""
    choices = _choices.get(shape)
    if choices is None:
        return None
    replaying = _Replaying(parser._interp, choices)
    parser._interp = replaying
    try:
        tree = parser.math()
    except ReplayMismatch:
        return None
    finally:
        parser._interp = replaying._simulator
    return tree if replaying.finished else None


def record(parser: Any, shape: tuple[int, ...]) -> Any:
    """``parser.math()``, remembering its choices for the shape when it succeeds."""
    recording = _Recording(parser._interp)
    parser._interp = recording
    try:
        tree = parser.math()  # a syntax error raises (the converter's error listener)
    finally:
        parser._interp = recording._simulator
    if len(_choices) >= _MAX_SHAPES:
        _choices.clear()
    _choices[shape] = recording.choices
    return tree


def forget() -> None:
    """Drop every recording (tests use this to parse from scratch)."""
    _choices.clear()

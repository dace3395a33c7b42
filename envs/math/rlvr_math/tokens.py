"""The token cursor shared by the family's small recursive-descent readers (exact arithmetic,
closed-form constants, rational expressions)."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import Any

from rlvr_envs.errors import RlvrEnvsError


class Refused(RlvrEnvsError):
    """The text is outside a reader's grammar, or would cost too much to read."""


class TokenCursor:
    """The tokens of a short answer, as ``pattern``'s first group finds them, and a position."""

    def __init__(self, text: str, pattern: re.Pattern[str]) -> None:
        self.tokens: list[str] = []
        pos = 0
        while pos < len(text):
            match = pattern.match(text, pos)
            if match is None:
                if text[pos:].strip():
                    raise Refused(text[pos:])
                break
            self.tokens.append(match.group(1))
            pos = match.end()
        self.i = 0

    def peek(self, ahead: int = 0) -> str | None:
        index = self.i + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise Refused(f"expected {expected}")
        self.i += 1
        return token

    def finish(self) -> None:
        """Refuse a text that has tokens left after a complete expression."""
        if self.i != len(self.tokens):
            raise Refused("trailing tokens")


class ArithmeticReader(TokenCursor, ABC):
    """A reader that evaluates as it parses: ``expr = term (('+'|'-') term)*`` and
    ``unary = ('+'|'-') unary | power``; subclasses define ``term`` and ``power`` over their
    own value type (exact fractions, high-precision floats)."""

    def run(self) -> Any:
        value = self.expr()
        self.finish()
        return value

    def expr(self) -> Any:
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
        return value

    def unary(self) -> Any:
        if self.peek() == "-":
            self.take()
            return -self.unary()
        if self.peek() == "+":
            self.take()
            return self.unary()
        return self.power()

    @abstractmethod
    def term(self) -> Any:
        """One product of ``unary`` factors, evaluated."""

    @abstractmethod
    def power(self) -> Any:
        """An atom with its exponent, if any, evaluated."""

"""How a stdin/stdout task's output is judged: a checker spec, and the built-in comparisons.

A stdio task may carry ``answer["checker"]``, one of::

    {"type": "tokens"}                                   # whitespace-separated tokens, exactly
    {"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6}  # numbers within a tolerance, other tokens exactly
    {"type": "program", "source": "...", "language": "python", "timeout_s": 5, "memory_mb": 512}

``"case_sensitive": false`` on ``tokens``/``float`` compares letters ignoring case (the Kattis
default validator's rule); ``"space_sensitive": true`` also requires the whitespace between, before
and after the tokens to be the expected output's, character for character (the Kattis flag
``space_change_sensitive``). A ``program`` checker speaks testlib's protocol (``sandboxed``) or, with
``"protocol": "kattis"``, the Kattis problem-package one (``validator input answer feedback_dir <
output``, exit 42 accepts, 43 rejects; ``kattis``), its ``"args"`` (a list of strings, the
package's validator arguments) following the feedback directory.

Without one, the family's comparison applies (lines with trailing spaces removed, exactly).
The built-in checkers run on the host: they only split and parse text the sandbox already cut at
``output_bytes``. A ``program`` checker (a special judge, ``special``) runs in a sandbox of its own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rlvr_code.contests.stated_bounds import stated_bound
from rlvr_envs.errors import RlvrEnvsError

KINDS = ("tokens", "float", "program")
PROTOCOLS = ("testlib", "kattis")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A decimal number as contest outputs write it: ASCII digits only, no ``inf``, ``nan``, ``0x``,
``1_000``, nor ``١٢٣`` or ``１２３`` (all of which Python's ``float`` accepts, and a Unicode digit
class matches)."""
_SPACE = re.compile(r"[ \t\n\r\v\f]+")
"""The gaps between tokens: ASCII whitespace, as testlib and Kattis read them. ``str.split()`` also
splits at U+00A0, U+3000, U+2028, U+001C-U+001F and U+0085: output a judge reads as one token."""
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
"""``case_sensitive: false`` folds ASCII letters only (the Kattis default validator's ``tolower``):
``casefold`` made ``yeſ`` (long s) equal ``YES`` and the Kelvin sign ``K`` equal ``k``."""
_MAX_SHOWN = 60
DEFAULT_CHECKER_S = 5.0
DEFAULT_CHECKER_MB = 512


class CheckerSpecError(RlvrEnvsError, ValueError):
    """A task's ``checker`` is not one of the forms above."""


@dataclass(frozen=True)
class Checker:
    kind: str
    abs_tol: float = 0.0
    rel_tol: float = 0.0
    source: str = ""
    language: str = "python"
    timeout_s: float = DEFAULT_CHECKER_S
    memory_mb: int = DEFAULT_CHECKER_MB
    case_sensitive: bool = True
    space_sensitive: bool = False
    protocol: str = "testlib"
    args: tuple[str, ...] = ()

    @property
    def builtin(self) -> bool:
        return self.kind != "program"

    @property
    def trusts_equal_output(self) -> bool:
        """Whether an output the family's line comparison finds equal to the expected one needs no
        judgement: not where the whitespace counts (that comparison forgives trailing spaces and a
        missing last newline, which ``space_change_sensitive`` rejects), nor for a special judge
        (``runs.untrusted_answers`` asks it)."""
        return self.builtin and not self.space_sensitive

    def compare(self, got: str, want: str) -> tuple[bool, str | None]:
        """A built-in checker's judgement: ``(accepted, why not)``."""
        if self.space_sensitive:
            where = _space_change(got, want)
            if where is not None:
                return False, where
        if not self.case_sensitive:
            got, want = got.translate(_ASCII_LOWER), want.translate(_ASCII_LOWER)
        if self.kind == "float":
            return floats_close(got, want, self.abs_tol, self.rel_tol)
        return tokens_equal(got, want)


def _tolerance(spec: Mapping[str, Any], key: str) -> float:
    """A relative tolerance in [0, 1); an absolute one any finite number from 0 (a Kattis package
    may state ``float_absolute_tolerance 1.5`` for answers in the millions: refusing it refused
    the package's whole set at ``make``)."""
    value = spec.get(key, 0.0)
    bound = 1.0 if key == "rel_tol" else math.inf
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0.0 <= float(value) < bound):
        raise CheckerSpecError(f"checker {key} must be a number in [0, {bound:g}), got {value!r}")
    return float(value)


def parse_checker(spec: Any) -> Checker | None:
    """The ``Checker`` a task's ``answer["checker"]`` describes (None when it has none).

    A plain string names a built-in (``"tokens"``, ``"float"``: tolerance 1e-6 both ways).
    """
    if spec is None:
        return None
    if isinstance(spec, str):
        spec = {"type": spec}
    if not isinstance(spec, Mapping):
        raise CheckerSpecError(f"a checker must be an object with a 'type', got {type(spec).__name__}")
    kind = spec.get("type")
    if kind not in KINDS:
        raise CheckerSpecError(f"unknown checker type {kind!r}; expected one of {list(KINDS)}")
    case_sensitive = spec.get("case_sensitive", True)
    if not isinstance(case_sensitive, bool):
        raise CheckerSpecError(f"checker case_sensitive must be true or false, got {case_sensitive!r}")
    space_sensitive = spec.get("space_sensitive", False)
    if not isinstance(space_sensitive, bool):
        raise CheckerSpecError(f"checker space_sensitive must be true or false, got {space_sensitive!r}")
    if kind == "tokens":
        return Checker("tokens", case_sensitive=case_sensitive, space_sensitive=space_sensitive)
    if kind == "float":
        abs_tol = _tolerance({"abs_tol": 1e-6, **spec}, "abs_tol")
        rel_tol = _tolerance({"rel_tol": 1e-6, **spec}, "rel_tol")
        if abs_tol == 0.0 and rel_tol == 0.0:
            raise CheckerSpecError("a float checker needs abs_tol or rel_tol above 0 (else use 'tokens')")
        return Checker(
            "float", abs_tol=abs_tol, rel_tol=rel_tol, case_sensitive=case_sensitive, space_sensitive=space_sensitive
        )
    source = spec.get("source")
    if not isinstance(source, str) or not source.strip() or "\x00" in source:
        raise CheckerSpecError("a program checker needs 'source', its non-empty program text")
    from rlvr_code.languages import canonical

    language = canonical(spec.get("language", "python"))
    if language is None:
        raise CheckerSpecError(f"unknown checker language {spec.get('language')!r}")
    timeout_s = spec.get("timeout_s", DEFAULT_CHECKER_S)
    memory_mb = spec.get("memory_mb", DEFAULT_CHECKER_MB)
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not (0 < timeout_s <= 60):
        raise CheckerSpecError(f"checker timeout_s must be in (0, 60], got {timeout_s!r}")
    if isinstance(memory_mb, bool) or not isinstance(memory_mb, int) or not (16 <= memory_mb <= 4096):
        raise CheckerSpecError(f"checker memory_mb must be an integer in [16, 4096], got {memory_mb!r}")
    protocol = spec.get("protocol", "testlib")
    if protocol not in PROTOCOLS:
        raise CheckerSpecError(f"unknown checker protocol {protocol!r:.40}; expected one of {list(PROTOCOLS)}")
    return Checker(
        "program",
        source=source,
        language=language,
        timeout_s=float(timeout_s),
        memory_mb=memory_mb,
        protocol=protocol,
        args=validator_args(spec.get("args"), protocol, CheckerSpecError),
    )


_MAX_ARGS = 64


def validator_args(value: Any, protocol: str, error: type[Exception]) -> tuple[str, ...]:
    """A Kattis validator's arguments: a list of at most 64 strings of at most 256 characters,
    no NUL (each goes shell-quoted into the step that runs it, ``kattis_protocol``)."""
    if value is None:
        return ()
    if protocol != "kattis":
        raise error("'args' are passed to a Kattis validator only ('protocol': 'kattis')")
    if (
        not isinstance(value, (list, tuple))
        or len(value) > _MAX_ARGS
        or not all(isinstance(a, str) and len(a) <= 256 and "\x00" not in a for a in value)
    ):
        raise error(f"validator args must be a list of at most {_MAX_ARGS} strings (256 characters, no NUL)")
    return tuple(value)


def _shown(token: str) -> str:
    return repr(token if len(token) <= _MAX_SHOWN else token[:_MAX_SHOWN] + "...")


def tokens(text: str) -> list[str]:
    """The text's tokens: what lies between runs of ASCII whitespace (``_SPACE``)."""
    return [token for token in _SPACE.split(text) if token]


_GAPS = re.compile(r"([ \t\n\r\v\f]+)")


def _layout(text: str) -> list[str | bool]:
    """The text's whitespace runs in order, with whether a token stands between them (the tokens
    themselves are compared by the checker's own rule)."""
    return [part if index % 2 else bool(part) for index, part in enumerate(_GAPS.split(text))]


def _space_change(got: str, want: str) -> str | None:
    """Why ``got``'s whitespace is not ``want``'s (the Kattis default validator with
    ``space_change_sensitive`` compares each whitespace character, the last newline included), or
    None where it is the same."""
    got_layout, want_layout = _layout(got), _layout(want)
    if got_layout == want_layout:
        return None
    for position, (g, w) in enumerate(zip(got_layout, want_layout)):
        if g != w:
            return f"space change error at part {position + 1}: expected {_shown(str(w))}, got {_shown(str(g))}"
    return f"space change error: expected {len(want_layout)} parts, got {len(got_layout)}"


def tokens_equal(got: str, want: str) -> tuple[bool, str | None]:
    """Whitespace-separated tokens, equal one by one (any run of spaces and newlines is one gap)."""
    got_tokens, want_tokens = tokens(got), tokens(want)
    for position, (g, w) in enumerate(zip(got_tokens, want_tokens), start=1):
        if g != w:
            return False, f"expected {_shown(w)} at token {position}, got {_shown(g)}"
    if len(got_tokens) != len(want_tokens):
        return False, f"expected {len(want_tokens)} tokens, got {len(got_tokens)}"
    return True, None


def _number(token: str) -> float | None:
    if not _NUMBER.fullmatch(token):
        return None
    value = float(token)
    return value if math.isfinite(value) else None


def floats_close(got: str, want: str, abs_tol: float, rel_tol: float) -> tuple[bool, str | None]:
    """Tokens as ``tokens_equal``, except where the expected token is a number: the contestant's
    must be a finite number within ``abs_tol`` or ``rel_tol x |expected|`` of it (either suffices,
    as contest judges state "absolute or relative error at most 1e-6")."""
    got_tokens, want_tokens = tokens(got), tokens(want)
    if len(got_tokens) != len(want_tokens):
        return False, f"expected {len(want_tokens)} tokens, got {len(got_tokens)}"
    for position, (g, w) in enumerate(zip(got_tokens, want_tokens), start=1):
        expected = _number(w)
        if expected is None:
            if g != w:
                return False, f"expected {_shown(w)} at token {position}, got {_shown(g)}"
            continue
        value = _number(g)
        if value is None:
            return False, f"expected a number near {_shown(w)} at token {position}, got {_shown(g)}"
        error = abs(value - expected)
        if error > abs_tol and error > rel_tol * abs(expected):
            return False, f"expected {_shown(w)} at token {position}, got {_shown(g)} (error {error:.3g})"
    return True, None


_STATED_TOLERANCE = re.compile(
    r"(?:absolute|relative)\s*(?:(?:or|/)\s*(?:absolute|relative)\s+)?error[^.]{0,120}?"
    r"(?:10\s*\^\s*\{?\s*[-−]\s*(\d{1,2})\s*\}?|1\s*[eE]\s*[-−]\s*(\d{1,2})|0\.(0{0,14})1\b)",
    re.IGNORECASE,
)


def stated_tolerance(statement: str) -> float | None:
    """The tolerance a problem statement states ("absolute or relative error does not exceed
    10^{-6}", "1e-9", "0.000001", "绝对误差或相对误差不超过 10^{-6}"), or None. Contest sets ship no
    checkers: this is how their float problems are found. Which errors it bounds:
    ``stated_tolerances``."""
    found = stated_tolerances(statement)
    return None if found is None else max(found)


def stated_tolerances(statement: str, reading: str = "v5") -> tuple[float, float] | None:
    """``(abs_tol, rel_tol)`` as the statement words them, in any language contest sets are written
    in, or None (red team rounds 14-15: ``stated_bounds``, whose docstring gives the reading). The
    contest ``-v5`` ids read statements so, ``-v4`` as round 14 did (``reading="v4"``: no precision
    words, a story's tolerance read as a bound); ``-v3`` reads English alone (``english_tolerances``)."""
    return stated_bound(statement, reading)


_SENTENCE_START = re.compile(r"(?:[.!?]\s|\n\s*\n)")


def english_tolerances(statement: str) -> tuple[float, float] | None:
    """``(abs_tol, rel_tol)`` as an English statement words them, or None (red team round 13; the
    contest ``-v3`` ids' reading: a statement in another language gets none).

    The statement's own words decide which errors the tolerance bounds: "absolute error" alone
    bounds the absolute error only (``rel_tol`` 0: it used to accept the relative one too, so on
    an answer of 10^9 a "1e-6 absolute" problem accepted an error of 1,000); "absolute or relative"
    (either word order, "absolute error or the relative error", "absolute/relative") bounds either;
    "relative error" alone is read as judges compute it, ``|a - b| / max(1, |b|)``, which is the
    absolute error below 1 (so both, at the same tolerance: an honest answer near 0 keeps paying).
    The words counted are those of the sentence that states the number ("absolute error at most
    1e-6, or relative error at most 1e-6" bounds either)."""
    found = _STATED_TOLERANCE.search(statement)
    if found is None:
        return None
    power, exponent, zeros = found.groups()
    digits = int(power or exponent) if (power or exponent) else len(zeros or "") + 1
    if not 1 <= digits <= 15:
        return None
    tolerance = 10.0 ** (-digits)
    starts = [m.end() for m in _SENTENCE_START.finditer(statement, 0, found.start())]
    end = _SENTENCE_START.search(statement, found.end())
    words = statement[starts[-1] if starts else 0 : end.start() if end else len(statement)].lower()
    if "absolute" in words and "relative" not in words:
        return tolerance, 0.0
    return tolerance, tolerance

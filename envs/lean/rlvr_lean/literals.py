"""What a literal means: a completion may not rebind it (rule ``literal_rebinding``).

Layer 1 accepts an option's value only when it is a literal (``simp (maxSteps := 100000)``,
``rw (occs := .pos [1, 2])``, ``rlvr_lean.options``), because a literal is data, not code the
completion wrote. That holds only while a literal means what Lean's own instances make it mean:
Lean elaborates ``100000`` as ``OfNat.ofNat 100000`` with an ``OfNat ℕ 100000`` instance found
by instance resolution, where the newest instance of equal priority wins, so a completion that
declares ``instance : OfNat ℕ n := ⟨f n⟩`` makes every numeral, option values included, run ``f``
when the option is evaluated. The other ways to rebind a literal (``@[default_instance]``,
``macro_rules`` for numerals, ``notation`` for digits, ``local``/``scoped`` instances) are refused
by their own rules already.

The classes Lean's elaborator inserts for a literal are few and fixed (``LITERAL_CLASSES``), but a
completion can reach them under a name of its own (``abbrev O := OfNat``, ``class C extends OfNat
ℕ 5``, ``open … renaming``): so every name the completion declares from a literal class, or from
a name so declared, is a literal class too (followed forward, as Lean requires a name to be declared
before it is used), and an ``instance`` (or ``deriving``) whose command names any of them is refused.
Labelled-valid proofs declare no instance at all (0 of 436 completion shapes of the shared cases).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rlvr_lean.attributes import _CLOSE_BRACKETS, _OPEN_BRACKETS
from rlvr_lean.kernel_names import DECLARING, Scope, declared_names
from rlvr_lean.tokens import IDENT, STRING, SYMBOL, Token, base_name

LITERAL_CLASSES = frozenset(
    # numerals (`OfNat`), decimals (`OfScientific`), a minus sign before a number (`Neg`), and
    # Mathlib's route for numerals ≥ 2 in a semiring (`instOfNat` through `NatCast` and `AtLeastTwo`)
    "OfNat OfScientific Neg NatCast IntCast AtLeastTwo".split()
)
_INSTANCE_MAKERS = frozenset({"instance", "deriving"})


_CLASS_WORDS = "|".join(sorted(LITERAL_CLASSES))
_ANYWHERE = re.compile(rf"{_CLASS_WORDS}|type_of")
"""Text without any of these holds no literal class, no instance of one and no ``type_of%``."""
_INSTANCE_OF_ONE = re.compile(rf"(?:^|\.)(?:inst|to)\w*(?:{_CLASS_WORDS})")
"""A library instance of a literal class, by Lean's naming: ``inst`` + the class (``instOfNatNat``,
``Int.instNegInt``, ``instNatCastInt``) or a parent projection ``to`` + the class
(``Zero.toOfNat0``, ``AddMonoidWithOne.toNatCast``). Its *type* is the class, so
``abbrev clsOf (_ : α) := α`` then ``instance : clsOf (instOfNatNat 5)`` declares an instance of
``OfNat ℕ 5`` without naming it (on the kernel: ``5 = 0`` by ``rfl``)."""


def _mentions(tokens: Sequence[Token], tainted: set[str]) -> int | None:
    """The first token that names a literal class, a name derived from one, a library instance of
    one, or ``type_of%`` (a term's type: which class it is cannot be read without Lean)."""
    for j, tok in enumerate(tokens):
        if tok.kind != IDENT:
            continue
        text = tok.text.removeprefix("_root_.")
        # any component: `@OfNat.mk ℕ 5 0` is a term whose type is the class, named by its namespace
        if base_name(text) in tainted or _INSTANCE_OF_ONE.search(text) or any(p in tainted for p in text.split(".")):
            return j
        if text == "type_of" and j + 1 < len(tokens) and tokens[j + 1].text == "%":
            return j
    return None


def literal_aliases(
    tokens: Sequence[Token], src: str, outer: Sequence[Scope] = (), known: frozenset[str] = frozenset()
) -> frozenset[str]:
    """The names ``tokens`` derive from a literal class (or from ``known``, aliases made before
    them), with ``known``: what a task's own header or statement makes a literal class for the
    completion (``abbrev O := OfNat`` in the header, then ``instance : O ℕ 5`` in the completion).
    The task's text may declare anything, so nothing here is refused: it is only followed."""
    tainted, _ = _follow(tokens, src, outer, known, refuse=False)
    return frozenset(tainted - LITERAL_CLASSES)


def literal_aliases_before(tokens: Sequence[Token], src: str, positions: Sequence[int]) -> list[frozenset[str]]:
    """``literal_aliases(tokens[:p], src)`` for every ``p`` of ``positions`` (ascending), in one walk:
    a reference file's fills and helpers are each judged with the aliases of everything before them,
    and one walk per span was quadratic (4,000 helpers: 9.4 s of layer 1; round 12)."""
    out: list[frozenset[str]] = []
    tainted = set(LITERAL_CLASSES)
    if not _ANYWHERE.search(src) or _mentions(tokens, tainted) is None:
        return [frozenset()] * len(positions)
    declared = dict(declared_names(tokens, src))  # a name's index only depends on what stands before it
    cuts = [
        i
        for i, t in enumerate(tokens)
        if t.kind == IDENT and (t.text in DECLARING or t.text == "deriving") and not (i and tokens[i - 1].text == ".")
    ]
    q = 0
    for start, stop in zip([0, *cuts], [*cuts, len(tokens)], strict=True):
        while q < len(positions) and positions[q] <= stop:
            if positions[q] <= start:
                out.append(frozenset(tainted - LITERAL_CLASSES))
            else:  # a position inside this segment: the segment cut there, as `tokens[:p]` would be
                partial = set(tainted)
                _taint(tokens, start, positions[q], partial, declared)
                out.append(frozenset(partial - LITERAL_CLASSES))
            q += 1
        _taint(tokens, start, stop, tainted, declared)
    out.extend(frozenset(tainted - LITERAL_CLASSES) for _ in positions[q:])
    return out


def _taint(tokens: Sequence[Token], start: int, stop: int, tainted: set[str], declared: dict[int, str]) -> None:
    """What the segment ``tokens[start:stop]`` derives from a tainted name (``_follow`` without refusing)."""
    segment = tokens[start:stop]
    at = _mentions(segment, tainted)
    _renamings(segment, tainted)
    if at is None:
        return
    tainted.update(t.text.strip('"') for t in segment if t.kind == STRING and t.text.strip('"').isidentifier())
    for j in range(start, stop):
        if j in declared:
            tainted.add(base_name(declared[j]))


def literal_rebinding(
    tokens: Sequence[Token], src: str, outer: Sequence[Scope] = (), aliases: frozenset[str] = frozenset()
) -> tuple[int, str] | None:
    """``(index, name)`` of the first literal class an ``instance``/``deriving`` of the completion
    names (directly, through a name the completion derived from one, or through ``aliases``: those
    the task's own text derived, ``literal_aliases``), or None."""
    return _follow(tokens, src, outer, aliases, refuse=True)[1]


def _follow(
    tokens: Sequence[Token], src: str, outer: Sequence[Scope], known: frozenset[str], *, refuse: bool
) -> tuple[set[str], tuple[int, str] | None]:
    """The literal classes and their derived names after ``tokens`` and, with ``refuse``, the first
    ``instance``/``deriving`` that names one (the walk stops there)."""
    tainted = set(LITERAL_CLASSES) | known
    if not known and (not tokens or not _ANYWHERE.search(src, tokens[0].start, tokens[-1].end)):
        # no literal class anywhere in the tokens' text (most completions: one regex search; only
        # their own text: a reference's fills are each read on their own)
        return tainted, None
    if _mentions(tokens, tainted) is None:
        return tainted, None  # nothing derives from a literal class
    declared = dict(declared_names(tokens, src, outer))  # index of a declared name -> its full name
    # one segment per declaring keyword (a command has at most one; Lean allows no declaration in a term)
    cuts = [
        i
        for i, t in enumerate(tokens)
        if t.kind == IDENT and (t.text in DECLARING or t.text == "deriving") and not (i and tokens[i - 1].text == ".")
    ]
    bounds = list(zip([0, *cuts], [*cuts, len(tokens)], strict=True))
    for start, stop in bounds:
        segment = tokens[start:stop]
        at = _mentions(segment, tainted)
        _renamings(segment, tainted)
        if at is None:
            continue
        if not refuse:  # a task's `notation "Lit" => OfNat` / `macro "Lit" : term => …`: its atom is an alias
            tainted.update(t.text.strip('"') for t in segment if t.kind == STRING and t.text.strip('"').isidentifier())
        if refuse and _makes_instance(segment, keyword_of(segment)):
            # which class an instance is of is in its signature, not its value (`instance :
            # Inhabited ℕ := ⟨OfNat.ofNat 5⟩` is an `Inhabited` instance); `type_of%` (`instance :
            # type_of% (instOfNatNat 5) := ⟨0⟩`) names no class at all: an honest instance names its class
            sig = _mentions(segment[: _signature_end(segment)], tainted)
            if sig is not None:
                found = segment[sig].text + ("%" if segment[sig].text == "type_of" else "")
                return tainted, (start + sig, found)
        for j in range(start, stop):  # what this command declares is now a literal class too
            if j in declared:
                tainted.add(base_name(declared[j]))
    return tainted, None


def _signature_end(segment: Sequence[Token]) -> int:
    """Where an instance's value begins (``:=``, ``where`` or ``|`` outside brackets); a
    ``deriving`` has no value: all of it."""
    if any(t.kind == IDENT and t.text == "deriving" for t in segment):
        return len(segment)
    depth = 0
    for j, tok in enumerate(segment):
        if tok.kind == SYMBOL and tok.text in _OPEN_BRACKETS:
            depth += 1
        elif tok.kind == SYMBOL and tok.text in _CLOSE_BRACKETS:
            depth = max(0, depth - 1)
        elif depth == 0 and (tok.text in (":=", "|") or (tok.kind == IDENT and tok.text == "where")):
            return j
    return len(segment)


def keyword_of(segment: Sequence[Token]) -> str:
    return segment[0].text if segment and segment[0].kind == IDENT else ""


def _makes_instance(segment: Sequence[Token], keyword: str) -> bool:
    return keyword in _INSTANCE_MAKERS or any(t.kind == IDENT and t.text == "deriving" for t in segment)


def _renamings(segment: Sequence[Token], tainted: set[str]) -> None:
    """``open X renaming a → b``: ``b`` is a literal class when ``a`` is."""
    for j in range(1, len(segment) - 1):
        tok = segment[j]
        if tok.kind == SYMBOL and tok.text in ("→", "->") and segment[j - 1].kind == IDENT:
            if base_name(segment[j - 1].text) in tainted and segment[j + 1].kind == IDENT:
                tainted.add(base_name(segment[j + 1].text))

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

from collections.abc import Sequence

from rlvr_lean.kernel_names import DECLARING, Scope, declared_names
from rlvr_lean.tokens import IDENT, SYMBOL, Token, base_name

LITERAL_CLASSES = frozenset(
    # numerals (`OfNat`), decimals (`OfScientific`), a minus sign before a number (`Neg`), and
    # Mathlib's route for numerals ≥ 2 in a semiring (`instOfNat` through `NatCast` and `AtLeastTwo`)
    "OfNat OfScientific Neg NatCast IntCast AtLeastTwo".split()
)
_INSTANCE_MAKERS = frozenset({"instance", "deriving"})


def _mentions(tokens: Sequence[Token], tainted: set[str]) -> int | None:
    for j, tok in enumerate(tokens):
        if tok.kind == IDENT and base_name(tok.text.removeprefix("_root_.")) in tainted:
            return j
    return None


def literal_rebinding(tokens: Sequence[Token], src: str, outer: Sequence[Scope] = ()) -> tuple[int, str] | None:
    """``(index, name)`` of the first literal class an ``instance``/``deriving`` of the completion
    names (directly or through a name the completion derived from one), or None."""
    if _mentions(tokens, set(LITERAL_CLASSES)) is None:
        return None  # nothing derives from a literal class (most completions: one pass of set lookups)
    tainted = set(LITERAL_CLASSES)
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
        keyword = segment[0].text if segment and segment[0].kind == IDENT else ""
        if keyword in _INSTANCE_MAKERS or any(t.kind == IDENT and t.text == "deriving" for t in segment):
            return start + at, segment[at].text
        for j in range(start, stop):  # what this command declares is now a literal class too
            if j in declared:
                tainted.add(base_name(declared[j]))
    return None


def _renamings(segment: Sequence[Token], tainted: set[str]) -> None:
    """``open X renaming a → b``: ``b`` is a literal class when ``a`` is."""
    for j in range(1, len(segment) - 1):
        tok = segment[j]
        if tok.kind == SYMBOL and tok.text in ("→", "->") and segment[j - 1].kind == IDENT:
            if base_name(segment[j - 1].text) in tainted and segment[j + 1].kind == IDENT:
                tainted.add(base_name(segment[j + 1].text))

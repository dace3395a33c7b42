"""Names the Lean kernel gives a meaning of its own: a completion may not declare them.

The kernel computes with natural-number literals itself (GMP arithmetic for ``Nat.add``,
``Nat.mul``, ``Nat.ble``, ...) and expands string literals through ``String``/``Char``/``List``: it
recognises these constants **by name**, not by their definitions. Under a toolchain ``Init``
declares them, so a completion that declares one fails ("already declared"); under a header that
does not (a ``prelude`` header, as the Lean 4.35 test kernel's tasks have), a completion could
declare ``def Nat.add (n _ : Nat) : Nat := n`` and have the kernel accept both ``Nat.add 2 2 = 4``
(by its arithmetic) and ``Nat.add a b = a`` (by the definition): a proof of ``False`` with no axiom,
which the audit's ``#print axioms`` cannot see. So declaring any of these names is refused, however
the name is reached (dotted, inside ``namespace Nat``, ``_root_.``-qualified).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rlvr_lean.tokens import IDENT, SYMBOL, Token

KERNEL_NAMES = frozenset(
    # natural-number literals and the operations the kernel computes on them
    "Nat Nat.zero Nat.succ Nat.add Nat.sub Nat.mul Nat.div Nat.mod Nat.gcd Nat.beq Nat.ble Nat.land Nat.lor "
    "Nat.xor Nat.shiftLeft Nat.shiftRight Nat.pow Nat.log2 Nat.pred Nat.rec Nat.casesOn "
    # what the literal operations return, and string/char literals
    "Bool Bool.true Bool.false String String.mk String.ofList Char Char.ofNat Char.mk List List.nil List.cons "
    "UInt32 UInt32.ofNat Fin Fin.mk OfNat OfNat.ofNat "
    # quotients (`init_quot`), equality (literal and proof-irrelevance checks), compiled-code trust
    "Quot Quot.mk Quot.lift Quot.ind Eq Eq.refl Eq.rec HEq Lean.reduceBool Lean.reduceNat Lean.ofReduceBool "
    "Lean.ofReduceNat Lean.trustCompiler".split()
)
"""Constants the kernel interprets by name (its literal, quotient and reduction extensions)."""

DECLARING = frozenset(
    "def theorem lemma abbrev instance structure inductive class opaque axiom constant alias irreducible_def".split()
)
_MODIFIERS = frozenset("private protected noncomputable unsafe partial nonrec".split())
_BRACKETS = {"(": ")", "[": "]", "{": "}", "⦃": "⦄"}
_GROUP = 64


def declared_names(tokens: Sequence[Token], src: str) -> Iterator[tuple[int, str]]:
    """``(index, full name)`` of each name the tokens declare, with the ``namespace``s they open
    (``end`` closes the last ``namespace``, ``section`` or ``mutual``; ``_root_.`` names ignore them)."""
    scopes: list[str] = []  # "" for a section
    n = len(tokens)
    for i, tok in enumerate(tokens):
        if tok.kind != IDENT or src[tok.start : tok.end] != tok.text:
            continue  # keywords as Lean reads them: `«end»` is a name
        word = tok.text
        if word == "namespace" and i + 1 < n and tokens[i + 1].kind == IDENT:
            scopes.append(tokens[i + 1].text)
        elif word in ("section", "mutual"):  # each is closed by an `end` too
            scopes.append("")
        elif word == "end" and scopes:
            scopes.pop()
        elif word in DECLARING and not (i and tokens[i - 1].text == "."):
            j = _name_after(tokens, i + 1)
            if j is None:
                continue
            name = tokens[j].text
            if name.startswith("_root_."):
                yield j, name[len("_root_.") :]
            else:
                prefix = ".".join(s for s in scopes if s)
                yield j, f"{prefix}.{name}" if prefix else name


def _name_after(tokens: Sequence[Token], j: int) -> int | None:
    """The index of the declared name after a declaring keyword at ``j - 1`` (``instance
    (priority := 10) name``, ``class inductive name``), or None when it declares no name."""
    n = len(tokens)
    while j < n:
        tok = tokens[j]
        if tok.kind == SYMBOL and tok.text in _BRACKETS and tokens[j - 1].text == "instance":
            # `instance (priority := 10) name`: skip the bracket group, read no further than
            # `_GROUP` tokens (a priority is short; unbounded, `instance (` repeated is quadratic)
            depth, close, stop = 0, _BRACKETS[tok.text], min(n, j + _GROUP)
            while j < stop:
                if tokens[j].text == tok.text:
                    depth += 1
                elif tokens[j].text == close:
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= stop:
                return None
            j += 1
            continue
        if tok.kind == IDENT and (tok.text in _MODIFIERS or tok.text == "inductive"):
            j += 1
            continue
        return j if tok.kind == IDENT else None
    return None

"""Names the Lean kernel gives a meaning of its own: a completion may not declare them.

The kernel computes with natural-number literals itself (GMP arithmetic for ``Nat.add``,
``Nat.mul``, ``Nat.ble``, ...) and expands string literals through ``String``/``Char``/``List``: it
recognises these constants **by name**, not by their definitions. Under a toolchain ``Init``
declares them, so a completion that declares one fails ("already declared"); under a header that
does not (a ``prelude`` header, as the Lean 4.35 test kernel's tasks have), a completion could
declare ``def Nat.add (n _ : Nat) : Nat := n`` and have the kernel accept both ``Nat.add 2 2 = 4``
(by its arithmetic) and ``Nat.add a b = a`` (by the definition): a proof of ``False`` with no axiom,
which the audit's ``#print axioms`` cannot see. So declaring any of these names is refused, however
the name is reached: dotted, ``_root_.``-qualified, and inside the namespaces open at that point,
read as Lean reads them (``Scope``): the task's header may leave ``namespace Nat`` open, and
``namespace Nat.X`` opens two scopes of which ``end X`` closes one, so ``def add`` after them
declares ``Nat.add`` (both scored 1.0 on the test kernel before round 10).
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
KERNEL_NAMESPACES = frozenset(n.rsplit(".", 1)[0] for n in KERNEL_NAMES if "." in n) - KERNEL_NAMES
"""Namespaces that hold them and are not kernel constants themselves (``Lean``): a type declared
under such a name gets constructors and projections inside it (``structure Lean where reduceBool``)."""
FORBIDDEN_DECLARATIONS = KERNEL_NAMES | KERNEL_NAMESPACES

DECLARING = frozenset(
    # `coinductive` (a command since Lean 4.2x) declares its name as `inductive` does
    "def theorem lemma abbrev instance structure inductive coinductive class opaque axiom constant alias "
    "irreducible_def".split()
)
_MODIFIERS = frozenset("private protected noncomputable unsafe partial nonrec".split())
_BRACKETS = {"(": ")", "[": "]", "{": "}", "⦃": "⦄"}
_GROUP = 64

Scope = tuple[str, str]
"""One of Lean's scopes: ``("namespace", component)``, ``("section", component or "")`` or
``("mutual", "")``. ``namespace A.B`` opens one scope per component, as Lean does."""


def namespace_of(scopes: Sequence[Scope]) -> str:
    """The current namespace under ``scopes`` (``"Nat"`` after ``namespace Nat``, ``""`` at the root)."""
    return ".".join(part for kind, part in scopes if kind == "namespace")


_KEYWORDS = (
    DECLARING
    | _MODIFIERS
    | frozenset(
        "example namespace section end mutual open export universe variable include omit set_option attribute "
        "import local scoped noncomputable in where deriving".split()
    )
)


def _parts(tokens: Sequence[Token], src: str, i: int) -> list[str]:
    """The components of the scope name written at ``i`` (none when no name is written there). Lean
    reads the name on the next lines too, unless it stands at column 0 (a new command) or is a
    keyword (``«def»`` is a name)."""
    if i >= len(tokens) or tokens[i].kind != IDENT or tokens[i].line_start:
        return []
    tok = tokens[i]
    if tok.text in _KEYWORDS and src[tok.start : tok.end] == tok.text:
        return []
    return tok.text.split(".")


def scope_step(tokens: Sequence[Token], src: str, i: int, scopes: list[Scope]) -> int:
    """Applies the scope command at ``i`` (if it is one) to ``scopes``, as Lean's ``namespace`` /
    ``section`` / ``end`` do: ``end X.Y`` closes as many scopes as the name has components (Lean
    closes them before it checks the name, so a mismatched ``end`` still closes them). Returns how
    many scopes an ``end`` asked to close (0 for anything else)."""
    tok = tokens[i]
    if tok.kind != IDENT or src[tok.start : tok.end] != tok.text:
        return 0  # keywords as Lean reads them: `«end»` is a name
    word = tok.text
    if word == "namespace" and i + 1 < len(tokens) and tokens[i + 1].kind == IDENT:
        scopes.extend(("namespace", part) for part in tokens[i + 1].text.split("."))
    elif word == "section":
        parts = _parts(tokens, src, i + 1)
        scopes.extend(("section", part) for part in parts or [""])
    elif word == "mutual":  # its `end` closes the block
        scopes.append(("mutual", ""))
    elif word == "end":
        count = 1 if scopes and scopes[-1][0] == "mutual" else max(1, len(_parts(tokens, src, i + 1)))
        del scopes[max(0, len(scopes) - count) :]
        return count
    return 0


def open_scopes(tokens: Sequence[Token], src: str, outer: Sequence[Scope] = ()) -> tuple[Scope, ...]:
    """The scopes open after ``tokens`` (a task's header, or a reference file up to a fill)."""
    scopes = list(outer)
    for i in range(len(tokens)):
        scope_step(tokens, src, i, scopes)
    return tuple(scopes)


def declared_names(tokens: Sequence[Token], src: str, outer: Sequence[Scope] = ()) -> Iterator[tuple[int, str]]:
    """``(index, full name)`` of each name the tokens declare, under the scopes ``outer`` open before
    them (the task's header) and those the tokens open (``_root_.`` names ignore them). A
    constructor's or a ``where``/``let rec`` name is declared inside its parent's name even when
    written ``_root_.…`` (Lean 4.35: ``| _root_.Nat.pow`` in ``inductive T`` is ``T._root_.Nat.pow``),
    so only the names after a declaring keyword can reach a kernel constant."""
    scopes = list(outer)
    for i, tok in enumerate(tokens):
        if tok.kind != IDENT or src[tok.start : tok.end] != tok.text:
            continue  # keywords as Lean reads them: `«end»` is a name
        if tok.text in DECLARING and not (i and tokens[i - 1].text == "."):
            j = _name_after(tokens, i + 1)
            if j is None:
                continue
            name = tokens[j].text
            if name.startswith("_root_."):
                yield j, name[len("_root_.") :]
            else:
                prefix = namespace_of(scopes)
                yield j, f"{prefix}.{name}" if prefix else name
        else:
            scope_step(tokens, src, i, scopes)


def kernel_declaration(tokens: Sequence[Token], src: str, outer: Sequence[Scope] = ()) -> tuple[int, str] | None:
    """The first ``(index, full name)`` the tokens declare that the kernel interprets (or a namespace
    of such names, ``Lean``), or None."""
    for j, name in declared_names(tokens, src, outer):
        if name in FORBIDDEN_DECLARATIONS:
            return j, name
    return None


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

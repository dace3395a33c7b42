"""Reference-file helpers that change what a later reference statement means (issue 26, round 12).

A reference file's theorems are audited by their axioms only: no statement is elaborated before the
completion's code (a theorem may be about a ``def`` the completion fills), so a helper declaration
(``allow_reference_helpers``) that Lean's name resolution prefers to what the reference meant turns
a later reference theorem into another statement, proved as written. Each of these paid ``ok`` 1.0
on the Lean 4.35 test kernel before this check:

- **namespace shadowing**: inside ``namespace Demo`` Lean resolves ``N.add`` to ``Demo.N.add``
  before the root's ``N.add`` (every namespace open at that point first, innermost to outermost, the
  root and ``open``s after them), so a helper ``def N.add (_ _ : N) : N := N.succ N.zero`` there
  (or ``def Demo.N.add`` at the root, or a ``structure N`` whose fields are ``Demo.N.*``) made
  ``theorem hard : N.add N.zero N.zero = N.succ N.zero`` true by ``rfl``; so did a ``where`` part
  of a helper named like the namespace (``def _root_.Demo.Sub … where N.add …`` in ``Demo.Sub``);
- **field notation**: ``b.double`` with ``b : B`` means ``B.double`` when it exists and only else
  the parent structure's ``A.double``, so a helper ``def B.double`` redirected it;
- **a fill's ``where`` part** (no helper needed, the default policy): ``def two : N := … where
  N.add …`` declares ``two.N.add``, which a later reference command inside ``namespace two``
  resolves ``N.add`` to (``let rec`` parts likewise);
- **auto-bound names**: a name the reference binds nowhere (``m`` in ``0 + m = m``) is bound
  automatically (``∀ {m}``) unless a constant ``m`` exists, so a helper ``def m`` made the
  universal statement one about that constant.

The mechanism is Lean's own resolution order, read from the text: every name the helpers declare
(with the namespaces open where they stand; constructors, fields and ``where`` parts lie under
them) is checked against the resolution candidates of every identifier the *reference* writes after
them (its own tokens, not the fills, which may use the helpers): ``P.ident`` for each namespace
prefix ``P`` open there, the root's ``ident``, and, for a field access (after a ``.``, or a name
whose first component is a term such as ``b``/``h``: lower case), any ``T.field``; and a helper
named like a namespace a later reference command stands in is refused whatever that command writes
(its ``where`` parts are not read as declarations); a fill's ``where``/``let rec`` parts are
declared under the filled name for the commands after it. A helper so named is refused (rule
``helper_shadowing``); an honest helper has a name of its own. ``open``ed namespaces are not
candidates: a helper there makes the name ambiguous, which Lean reports as an error.
"""

from __future__ import annotations

from collections.abc import Sequence

from rlvr_lean.kernel_names import Scope, declared_names, scope_step
from rlvr_lean.tokens import IDENT, SYMBOL, Token

Span = tuple[int, int]


def _namespace_parts(scopes: Sequence[Scope]) -> list[str]:
    return [part for kind, part in scopes if kind == "namespace"]


def _is_field(tokens: Sequence[Token], i: int, name: str) -> bool:
    """Whether ``tokens[i]`` is read by Lean's field notation: written after a ``.`` glued to it
    (``(f x).double``), or a dotted name whose head is a term (``b.double``, ``h.le``: locals and
    hypotheses are written in lower case; ``Nat.succ`` is a constant's full name)."""
    tok = tokens[i]
    if i and tokens[i - 1].kind == SYMBOL and tokens[i - 1].text == "." and tokens[i - 1].end == tok.start:
        return True
    head = name.split(".", 1)[0]
    return "." in name and bool(head) and (head[0].islower() or head[0] == "_")


def helper_shadowing(
    tokens: Sequence[Token], src: str, helpers: Sequence[Span], reference: Sequence[tuple[int, int, Sequence[Span]]]
) -> tuple[int, str, str] | None:
    """``(index of the reference's identifier, the helper's name, what the reference wrote)`` for
    the first identifier of a reference command (``reference``: its token span and its fills, which
    are skipped) that a helper declared before it could capture, or None. ``helpers``: the helper
    commands' token spans. Linear in the tokens; runs only where a completion adds helpers."""
    if not helpers and not any(
        tokens[k].text in ("where", "rec") for _, _, fills in reference for a, b in fills for k in range(a, b)
    ):
        return None  # nothing declared besides the reference's own (most completions: one pass over the fills)
    helper_at = {s: e for s, e in helpers}
    reference_at = {s: (e, fills) for s, e, fills in reference}
    declared: set[str] = set()  # every helper name so far, full
    fields: dict[str, str] = {}  # last component of a dotted helper name -> the name (field-notation targets)
    scopes: list[Scope] = []
    i, n = 0, len(tokens)
    while i < n:
        if i in helper_at:
            end = helper_at[i]
            for _, name in declared_names(tokens[i:end], src, tuple(scopes)):
                declared.add(name)
                if "." in name:
                    fields.setdefault(name.rsplit(".", 1)[1], name)
            for k in range(i, end):  # a helper's own scope words (balanced: the `scope` rule)
                scope_step(tokens, src, k, scopes)
            i = end
            continue
        if i in reference_at:
            end, fills = reference_at[i]
            if declared:
                skip = {k for a, b in fills for k in range(a, b)}
                found = _captured(tokens, i, end, skip, scopes, declared, fields)
                if found is not None:
                    return found
            # a fill's `where` / `let rec` parts are declared under the filled name, for what follows
            parts = [part for a, b in fills for part in _local_parts(tokens, src, a, b)]
            if parts:
                owner = next(iter(declared_names(tokens[i:end], src, tuple(scopes))), None)
                if owner is not None:
                    declared.update(f"{owner[1]}.{part}" for part in parts)
        scope_step(tokens, src, i, scopes)
        i += 1
    return None


def _column(src: str, offset: int) -> int:
    return offset - (src.rfind("\n", 0, offset) + 1)


def _local_parts(tokens: Sequence[Token], src: str, a: int, b: int) -> list[str]:
    """The names a fill ``tokens[a:b]`` declares under the filled declaration: ``let rec NAME`` and
    the declarations of a ``where`` block (each begins at the column of the first one, as Lean's
    ``sepByIndent`` reads them). A ``def two := … where N.add …`` declares ``two.N.add``, which a later
    reference command inside ``namespace two`` resolves ``N.add`` to (``ok`` 1.0 on the 4.35 kernel
    with the default policy: no helper needed)."""
    out: list[str] = []
    k = a
    while k < b:
        tok = tokens[k]
        keyword = tok.kind == IDENT and src[tok.start : tok.end] == tok.text
        if keyword and tok.text == "rec" and k > a and tokens[k - 1].text == "let" and k + 1 < b:
            if tokens[k + 1].kind == IDENT:
                out.append(tokens[k + 1].text)
        elif keyword and tok.text == "where" and k + 1 < b:
            first = k + 1
            while first < b and tokens[first].kind == SYMBOL and tokens[first].text in ("@[", "]"):
                first += 1  # attributes before the first declaration are read with it below
            column = _column(src, tokens[first].start) if first < b else -1
            for j in range(k + 1, b):
                at_start = j == first or src.rfind("\n", tokens[j - 1].end, tokens[j].start) >= 0
                if tokens[j].kind == IDENT and at_start and _column(src, tokens[j].start) == column:
                    out.append(tokens[j].text)
            break  # the block runs to the end of the fill
        k += 1
    return out


def _captured(
    tokens: Sequence[Token],
    start: int,
    end: int,
    skip: set[int],
    scopes: list[Scope],
    declared: set[str],
    fields: dict[str, str],
) -> tuple[int, str, str] | None:
    parts = _namespace_parts(scopes)
    # A helper named like a namespace this command stands in (`def _root_.Demo.Sub … where N.add …`
    # inside `namespace Demo.Sub`) holds `where`/`let rec` parts (`Demo.Sub.N.add`) that are not read
    # as declarations here, and each of them would be tried first: refused whatever the command writes.
    for depth in range(1, len(parts) + 1):
        if (outer := ".".join(parts[:depth])) in declared:
            return start, outer, "namespace " + ".".join(parts)
    for k in range(start, end):
        tok = tokens[k]
        if k in skip or tok.kind != IDENT or tok.text.startswith("_root_."):
            continue  # `_root_.x` is resolved exactly: nothing can capture it
        name = tok.text
        components = name.split(".")
        # namespace candidates, innermost first (`Demo.N.add`, or `Demo.N` holding it, for `N.add`),
        # then the root: a name the reference leaves unbound is an auto-bound implicit (`∀ m`) until
        # a helper declares `m`
        for depth in range(len(parts), -1, -1):
            candidate = parts[:depth] + components
            for cut in range(depth + 1, len(candidate) + 1):
                full = ".".join(candidate[:cut])
                if full in declared:
                    return k, full, name
        if _is_field(tokens, k, name) and components[-1] in fields:
            return k, fields[components[-1]], name
    return None

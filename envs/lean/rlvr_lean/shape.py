"""From a completion to the Lean code that is checked: extraction, commands, statement tasks.

A statement task's completion may give the proof body (what follows ``:=``) or restate the whole
theorem with its proof, with helper declarations before it. Either way the code sent to Lean is
assembled from the *task's own* statement text and the completion's proof, so a restated
statement that differs is rejected (``statement_drift``) before Lean ever sees it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache

from rlvr_envs.errors import RlvrEnvsError
from rlvr_lean.kernel_names import Scope, open_scopes, scope_step
from rlvr_lean.literals import literal_aliases
from rlvr_lean.policy import COMMAND_WORDS, DECL_KEYWORDS, MODIFIER_WORDS, RULES, LeanPolicy, Violation, scan
from rlvr_lean.tokens import IDENT, SYMBOL, LexError, Token, line_of, tokenize, tokenize_cached

_FENCE = re.compile(r"```[ \t]*(lean4?)[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)
_OPEN = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄", "@[": "]"}
_CLOSE = {")", "]", "}", "⟩", "⦄"}


class TaskFormatError(RlvrEnvsError, ValueError):
    """A task's own Lean text cannot be used (no theorem, unreadable)."""


def extract_lean(completion: str) -> str | None:
    """The last fenced ``lean``/``lean4`` block after any ``<think>`` part, else the whole text.

    None when nothing is left: an empty completion, or a ``<think>`` that never closes.
    """
    text = completion
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    elif "<think>" in text:
        return None
    blocks = _FENCE.findall(text)
    code = blocks[-1][1] if blocks else text
    return code if code.strip() else None


def _begins_command(tok: Token) -> bool:
    if not tok.line_start:
        return False
    if tok.kind == IDENT:
        return tok.text in COMMAND_WORDS or tok.text in DECL_KEYWORDS
    return tok.kind == "hash" or (tok.kind == SYMBOL and tok.text == "@[")


def split_commands(tokens: tuple[Token, ...] | list[Token]) -> list[tuple[int, int]]:
    """Token index ranges of top-level commands: a command begins at a command or declaration
    word (or ``@[``) at column 0; attributes and modifiers stay with the declaration they precede."""
    starts: list[int] = [0] if tokens else []
    modifiers_only = False  # the current command so far holds only attributes and modifiers
    depth = 0
    for i, tok in enumerate(tokens):
        if depth:
            if tok.kind == SYMBOL and tok.text == "[":
                depth += 1
            elif tok.kind == SYMBOL and tok.text == "]":
                depth -= 1
            continue
        begins = _begins_command(tok)
        if begins and not modifiers_only and i:
            starts.append(i)
        is_modifier = (tok.kind == SYMBOL and tok.text == "@[") or (tok.kind == IDENT and tok.text in MODIFIER_WORDS)
        modifiers_only = is_modifier and (begins or modifiers_only)
        if tok.kind == SYMBOL and tok.text == "@[":
            depth = 1
    bounds = [*starts[1:], len(tokens)]
    return [(s, e) for s, e in zip(starts, bounds) if e > s]


def decl_keyword(tokens: tuple[Token, ...] | list[Token], start: int, end: int) -> int | None:
    """Index of the declaration keyword of the command ``tokens[start:end]`` after its attributes
    and modifiers, or None when the command is not a declaration."""
    i, depth = start, 0
    while i < end:
        tok = tokens[i]
        if tok.text == "@[":
            depth += 1
        elif depth and tok.text == "[":
            depth += 1
        elif depth and tok.text == "]":
            depth -= 1
        elif depth == 0:
            if tok.kind == IDENT and tok.text in MODIFIER_WORDS:
                pass
            elif tok.kind == IDENT and tok.text in DECL_KEYWORDS:
                return i
            else:
                return None
        i += 1
    return None


def signature_end(tokens: tuple[Token, ...] | list[Token], start: int, end: int) -> int | None:
    """Index of the top-level ``:=`` that ends a declaration's signature (``|`` is also ``|x|``)."""
    stack: list[str] = []
    for i in range(start, end):
        text = tokens[i].text
        if tokens[i].kind != SYMBOL:
            continue
        if text in _OPEN:
            stack.append(_OPEN[text])
        elif text in _CLOSE:
            if stack and stack[-1] == text:
                stack.pop()
        elif not stack and text == ":=":
            return i
    return None


@dataclass(frozen=True)
class Statement:
    """A parsed statement task."""

    header: str
    """What the REPL runs once (imports, ``open``, options); its environment is reused."""
    prefix: str
    """The header's last, unfinished line (``@[simp] ``, ``set_option ... in ``): glued to the theorem."""
    signature: str
    """The statement without ``:=`` (and without a trailing ``by``/``sorry``)."""
    keyword: str
    name: str | None
    tactic_mode: bool
    sig_tokens: tuple[str, ...]
    header_commands: frozenset[tuple[str, ...]]
    fingerprint: str
    names: frozenset[str] = frozenset()
    """Every name the header and statement write: the completion may repeat them."""
    scopes: tuple[Scope, ...] = ()
    """The namespaces and sections the header leaves open: the completion's declarations are named in them."""
    literal_names: frozenset[str] = frozenset()
    """Names the header or statement derives from a literal class (``abbrev O := OfNat``): the
    completion may not declare an instance of them (``literals.literal_aliases``)."""

    @property
    def audit_name(self) -> str:
        return self.name if self.name is not None else f"_rlvr_example_{self.fingerprint}"

    def ref_declaration(self) -> str:
        """The statement under a fresh name, elaborated before the completion's code (kernel audit)."""
        head = self.signature.split(self.keyword, 1)
        rest = head[1] if len(head) == 2 else ""
        if self.name is not None:
            rest = rest.lstrip()[len(self.name) :]
        # `_root_.`: the audit names it from the root, whatever namespace the header opened.
        return f"{self.prefix}theorem _root_._rlvr_ref_{self.fingerprint}{rest} := sorry"


def _command_texts(tokens: tuple[Token, ...]) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(t.text for t in tokens[s:e]) for s, e in split_commands(tokens))


@lru_cache(maxsize=4096)
def parse_statement(header: str, statement: str) -> Statement:
    """Parse a task's header and statement once (cached: every sample of a task shares them)."""
    cut = header.rfind("\n") + 1
    head, prefix = header[:cut], header[cut:]
    if not prefix.strip():
        head, prefix = header, ""
    try:
        tokens = tokenize_cached(statement)
        header_tokens = tokenize_cached(head)
    except LexError as exc:
        raise TaskFormatError(f"the task's Lean text cannot be read: {exc}") from exc
    cmds = split_commands(tokens)
    found = None
    for s, e in cmds:
        k = decl_keyword(tokens, s, e)
        if k is not None and tokens[k].text in ("theorem", "lemma", "example"):
            found = (s, e, k)
    if found is None:
        raise TaskFormatError("the statement has no `theorem`, `lemma` or `example`")
    s, e, k = found
    keyword = tokens[k].text
    name = tokens[k + 1].text if keyword != "example" and k + 1 < e else None
    stop = signature_end(tokens, k, e)
    if stop is None:
        sig_end_offset = len(statement)
        tail: list[str] = []
    else:
        sig_end_offset = tokens[stop].start
        tail = [t.text for t in tokens[stop + 1 : e]]
    if tail not in ([], ["by"], ["sorry"], ["by", "sorry"]):
        raise TaskFormatError("the statement already has a proof after `:=`")
    signature = statement[:sig_end_offset].rstrip()
    digest = hashlib.sha256(f"{header}\x00{statement}".encode()).hexdigest()[:10]
    return Statement(
        header=head,
        prefix=prefix,
        signature=signature,
        keyword=keyword,
        name=name[7:] if name and name.startswith("_root_.") else name,
        tactic_mode=tail[:1] == ["by"],
        sig_tokens=tuple(
            "theorem" if t.text == "lemma" else t.text for t in tokens[k : stop if stop is not None else e]
        ),
        header_commands=_command_texts(header_tokens),
        fingerprint=digest,
        names=frozenset(t.text for t in (*header_tokens, *tokens) if t.kind == IDENT),
        scopes=open_scopes(header_tokens, head),
        literal_names=literal_aliases(
            tokens, statement, open_scopes(header_tokens, head), literal_aliases(header_tokens, head)
        ),
    )


@dataclass(frozen=True)
class Prepared:
    """What layers 2 and 3 check: ``code`` runs in the environment of ``header``."""

    header: str
    code: str
    audit_names: tuple[str, ...]
    ref_declaration: str | None = None
    """Statement tasks: the statement under ``ref_name``, run before ``code`` (type comparison)."""
    ref_name: str | None = None
    extracted: str = ""
    helpers: int = 0
    notes: dict[str, object] = field(default_factory=dict)


def _indent(body: str) -> str:
    return "\n".join(("  " + line if line.strip() else line) for line in body.strip("\n").splitlines())


def _first_difference(expected: tuple[str, ...], found: list[Token], src: str) -> tuple[str, int | None]:
    for i, want in enumerate(expected):
        if i >= len(found):
            return f"the statement ends early: expected `{want}` next", line_of(src, found[-1].end) if found else None
        got = "theorem" if found[i].text == "lemma" else found[i].text
        if got != want:
            return f"expected `{want}`, found `{found[i].text}`", line_of(src, found[i].start)
    return "the statement goes on after the task's statement ends", line_of(src, found[len(expected)].start)


def scope_violation(tokens: tuple[Token, ...] | list[Token], src: str, start: int, stop: int) -> Violation | None:
    """``scope`` when ``tokens[start:stop]`` leave a ``namespace`` (it changes what every later
    name, the audit's included, resolves to) or a ``mutual`` block open, or when an ``end`` closes
    a scope opened before them. A ``section`` may stay open: it names nothing, and what it could
    scope (``variable``, local instances, notation) is refused anyway. These are keywords
    (``«end»`` is a name), so they are counted wherever Lean reads them, not only at a line start,
    and as Lean counts them: one scope per component (``namespace Nat.X`` then ``end X`` leaves
    ``Nat`` open; ``end X.Y`` closes two)."""
    span = tokens[start:stop]
    scopes: list[Scope] = []
    opened_at: list[Token] = []  # the token that opened each scope, for the message
    for i, tok in enumerate(span):
        before = len(scopes)
        closed = scope_step(span, src, i, scopes)
        if closed > before:  # an `end` (of one or more components) reaches past what was opened here
            return Violation("scope", "`end` closes a scope the task opened", line_of(src, tok.start), tok.text)
        del opened_at[len(scopes) :]
        opened_at.extend([tok] * (len(scopes) - len(opened_at)))
    for (kind, _), tok in zip(scopes, opened_at, strict=True):
        if kind != "section":
            return Violation("scope", RULES["scope"], line_of(src, tok.start), tok.text)
    return None


def prepare_statement(stmt: Statement, lean: str, policy: LeanPolicy) -> Prepared | Violation | None:
    """Static layer for a statement task: the code to check, the first violation, or None (no proof)."""
    tokens = tokenize(lean)
    if not tokens:
        return None
    cmds = split_commands(tokens)
    # Leading commands that repeat the task's own header (imports, open, options) are dropped:
    # the header is already loaded, and nothing the task itself contains is held against it.
    while cmds and tuple(t.text for t in tokens[cmds[0][0] : cmds[0][1]]) in stmt.header_commands:
        cmds.pop(0)
    if not cmds:
        return None
    start_tok = cmds[0][0]
    violation = scan(tokens[start_tok:], lean, policy, stmt.names, stmt.scopes, stmt.literal_names)
    if violation is not None:
        return violation
    decls = []
    for s, e in cmds:
        k = decl_keyword(tokens, s, e)
        if k is not None:
            decls.append((s, e, k))
    mains = [
        (s, e, k)
        for s, e, k in decls
        if tokens[k].text in ("theorem", "lemma", "example")
        and (
            (stmt.name is None and tokens[k].text == "example")
            or (stmt.name is not None and k + 1 < e and tokens[k + 1].text.removeprefix("_root_.") == stmt.name)
        )
    ]
    statements = [d for d in decls if tokens[d[2]].text in ("theorem", "lemma", "example")]
    restated = bool(decls) and decls[0][0] == start_tok
    if not mains and restated:
        s, e, k = (statements or decls)[-1]
        what = " ".join(t.text for t in tokens[k : min(e, k + 2)])
        return Violation(
            "statement_drift",
            f"the completion states `{what}`; the task's theorem is `{stmt.name or 'example'}`",
            line_of(lean, tokens[k].start),
            what,
        )
    if stmt.name is not None and len(mains) > 1:
        k = mains[1][2]
        return Violation(
            "statement_drift", f"the completion states `{stmt.name}` twice", line_of(lean, tokens[k].start)
        )
    if mains:
        s, e, k = mains[-1] if stmt.name is None else mains[0]
        stop = signature_end(tokens, k, e)
        sig = list(tokens[k : stop if stop is not None else e])
        expected = stmt.sig_tokens
        if tuple("theorem" if t.text == "lemma" else t.text for t in sig) != expected:
            message, line = _first_difference(expected, sig, lean)
            return Violation("statement_drift", message, line)
        if stop is None:
            return Violation(
                "statement_drift", "the restated theorem has no `:=` before its proof", line_of(lean, tokens[k].start)
            )
        helpers_cmds = [c for c in cmds if c[1] <= s]
        if helpers_cmds and not policy.allow_helpers:
            first = helpers_cmds[0]
            return Violation("helpers", RULES["helpers"], line_of(lean, tokens[first[0]].start), tokens[first[0]].text)
        unbalanced = scope_violation(tokens, lean, start_tok, s)
        if unbalanced is not None:
            return unbalanced
        helpers = lean[tokens[helpers_cmds[0][0]].start : tokens[s].start] if helpers_cmds else ""
        body = lean[tokens[stop].end :]
        n_helpers = len(helpers_cmds)
    else:
        helpers, n_helpers = "", 0
        body = lean[tokens[start_tok].start :]
        if tokens[start_tok].text == ":=":
            body = body[2:]
    # The audit runs after the code, in whatever scope the code leaves: a namespace left open
    # there (or the header's own closed) changes what the audit's names resolve to.
    unbalanced = scope_violation(tokens, lean, start_tok, len(tokens))
    if unbalanced is not None:
        return unbalanced
    body_tokens = tokenize(body)
    if not body_tokens:
        return None
    if body_tokens[0].text != "by" and stmt.tactic_mode:
        body = " by\n" + _indent(body)
    elif not body[:1].isspace():
        body = " " + body
    signature = stmt.signature
    if stmt.name is None:
        signature = signature.replace("example", f"theorem {stmt.audit_name}", 1)
    code = f"{helpers.rstrip()}\n\n" if helpers.strip() else ""
    code += f"{stmt.prefix}{signature} :={body}"
    return Prepared(
        header=stmt.header,
        code=code.rstrip() + "\n",
        audit_names=(stmt.audit_name,),
        ref_declaration=stmt.ref_declaration(),
        ref_name=f"_rlvr_ref_{stmt.fingerprint}",
        extracted=lean,
        helpers=n_helpers,
    )

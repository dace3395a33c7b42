"""Reference-file tasks: a Lean file with ``sorry`` placeholders; the completion fills each one.

Everything that is not a ``sorry`` must be kept token for token (whitespace and comments may
change): the commands of the reference are matched, in order, against the completion's, and
inside a command the text between placeholders must be the same. New helper declarations
between the reference's commands are accepted only with ``allow_reference_helpers``. The static
rules then read what the completion added: the fills and the helpers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rlvr_lean.kernel_names import DECLARING, Scope, namespace_of, scope_step
from rlvr_lean.literals import literal_aliases_before
from rlvr_lean.policy import COMMAND_WORDS, DECL_KEYWORDS, RULES, LeanPolicy, Violation, scan
from rlvr_lean.shadowing import helper_shadowing
from rlvr_lean.shape import Prepared, TaskFormatError, decl_keyword, scope_violation, split_commands
from rlvr_lean.tokens import IDENT, LexError, Token, line_of, tokenize, tokenize_cached

_AUDITED = frozenset({"theorem", "lemma", "def", "abbrev", "instance"})
_FILL_COMMANDS = (DECLARING | DECL_KEYWORDS | COMMAND_WORDS) - {
    "open",
    "set_option",
    "constant",
    "namespace",
    "section",
    "end",
}
"""Keywords that end a fill's term and begin a new command (Lean reads ``rfl instance …`` on one
line as the term ``rfl`` and then an ``instance`` command): a fill holding one adds a declaration
the reference does not have, where no helper check sees it (it is not at a line start).
``open … in`` and ``set_option … in`` are terms too; ``constant`` is a name in Lean 4; scope
words are the ``scope`` rule's."""


@dataclass(frozen=True)
class RefCommand:
    segments: tuple[tuple[str, ...], ...]
    """The command's tokens split at each ``sorry``: one segment more than it has placeholders."""
    line: int
    head: str


@dataclass(frozen=True)
class Reference:
    header: str
    imports: frozenset[tuple[str, ...]]
    commands: tuple[RefCommand, ...]
    audit_names: tuple[str, ...]
    placeholders: int
    names: frozenset[str] = frozenset()
    """Every name the reference writes: its fills may use them."""


def _full_names(tokens: tuple[Token, ...], cmds: list[tuple[int, int]], text: str) -> list[tuple[int, str | None]]:
    """For each command, the fully qualified name it declares, or None. Scopes are followed as Lean
    follows them (``kernel_names.scope_step``): ``namespace A.B`` opens two of which ``end B`` closes
    one, and a ``mutual`` block's ``end`` closes the block, not the namespace around it (before round
    12 both dropped the namespace, so an honest proof of a later theorem was audited under a name
    that did not exist: ``missing_constant``, 0)."""
    scopes: list[Scope] = []
    out: list[tuple[int, str | None]] = []
    for index, (s, e) in enumerate(cmds):
        k = decl_keyword(tokens, s, e)
        if k is not None and tokens[k].text in _AUDITED and k + 1 < e and tokens[k + 1].kind == IDENT:
            name = tokens[k + 1].text
            prefix = namespace_of(scopes)
            if name.startswith("_root_."):
                out.append((index, name[7:]))
            else:
                out.append((index, f"{prefix}.{name}" if prefix else name))
        else:
            out.append((index, None))
        for i in range(s, e):
            scope_step(tokens, text, i, scopes)
    return out


@lru_cache(maxsize=1024)
def parse_reference(text: str) -> Reference:
    try:
        tokens = tokenize_cached(text)
    except LexError as exc:
        raise TaskFormatError(f"the reference cannot be read: {exc}") from exc
    cmds = split_commands(tokens)
    imports = [c for c in cmds if tokens[c[0]].text == "import"]
    n_imports = 0
    while n_imports < len(cmds) and tokens[cmds[n_imports][0]].text == "import":
        n_imports += 1
    if len(imports) != n_imports:
        raise TaskFormatError("the reference has an `import` after other commands")
    header = text[: tokens[cmds[n_imports][0]].start] if n_imports < len(cmds) else text
    body_cmds = cmds[n_imports:]
    if not body_cmds:
        raise TaskFormatError("the reference has no commands besides imports")
    commands = []
    placeholders = 0
    names = _full_names(tokens, body_cmds, text)
    audit = []
    for (s, e), (_, name) in zip(body_cmds, names):
        segs: list[tuple[str, ...]] = [()]
        for tok in tokens[s:e]:
            if tok.kind == IDENT and tok.text == "sorry":
                segs.append(())
                placeholders += 1
            else:
                segs[-1] = (*segs[-1], tok.text)
        if len(segs) > 1 and name is not None:
            audit.append(name)
        head = " ".join(t.text for t in tokens[s : min(e, s + 3)])
        commands.append(RefCommand(tuple(segs), line_of(text, tokens[s].start), head))
    if not placeholders:
        raise TaskFormatError("the reference has no `sorry` to fill")
    return Reference(
        header=header,
        imports=frozenset(tuple(t.text for t in tokens[s:e]) for s, e in imports),
        commands=tuple(commands),
        audit_names=tuple(audit),
        placeholders=placeholders,
        names=frozenset(t.text for t in tokens if t.kind == IDENT),
    )


def _match(cmd: RefCommand, texts: list[str]) -> list[tuple[int, int]] | None:
    """The fills (index ranges into ``texts``) if the command matches with its sorries filled."""
    segs = cmd.segments
    first = segs[0]
    if tuple(texts[: len(first)]) != first:
        return None
    if len(segs) == 1:
        return [] if len(texts) == len(first) else None
    pos = len(first)
    fills: list[tuple[int, int]] = []
    for seg in segs[1:-1]:
        found = None
        for at in range(pos + 1, len(texts) - len(seg) + 1):
            if tuple(texts[at : at + len(seg)]) == seg:
                found = at
                break
        if found is None:
            return None
        fills.append((pos, found))
        pos = found + len(seg)
    last = segs[-1]
    tail_start = len(texts) - len(last)
    if tail_start < pos + 1 or tuple(texts[tail_start:]) != last:
        return None
    fills.append((pos, tail_start))
    return fills


def _command_in_fill(tokens: Sequence[Token], src: str, a: int, b: int, policy: LeanPolicy) -> Violation | None:
    """A command keyword inside the fill ``tokens[a:b]`` (``rfl noncomputable instance fake : …``):
    an ``instance`` changes what the reference's later statements mean (on the 4.35 kernel a later
    theorem was then proved by ``rfl`` and paid); any other declaration is a helper."""
    for k in range(a, b):
        tok = tokens[k]
        if tok.kind != IDENT or tok.text not in _FILL_COMMANDS or src[tok.start : tok.end] != tok.text:
            continue  # `«instance»` is a name
        if k and tokens[k - 1].text == ".":
            continue
        where = line_of(src, tok.start)
        if tok.text in ("instance", "deriving") and not policy.allows("instance"):
            return Violation("instance", f"`{tok.text}` after a fill's term: {RULES['instance']}", where, tok.text)
        if not policy.allow_reference_helpers:
            return Violation(
                "helpers", f"`{tok.text}` after a fill's term begins a new command: {RULES['helpers']}", where, tok.text
            )
    return None


def _difference(cmd: RefCommand, tokens: list[Token], src: str) -> Violation:
    want = [t for seg in cmd.segments for t in (*seg, "sorry")][:-1]
    for i, expected in enumerate(want):
        if expected == "sorry":
            break
        if i >= len(tokens):
            return Violation("reference_drift", f"the reference's `{cmd.head}` (line {cmd.line}) ends early here")
        if tokens[i].text != expected:
            return Violation(
                "reference_drift",
                f"in `{cmd.head}` (reference line {cmd.line}): expected `{expected}`, found `{tokens[i].text}`",
                line_of(src, tokens[i].start),
                tokens[i].text,
            )
    line = line_of(src, tokens[0].start) if tokens else None
    return Violation(
        "reference_drift", f"`{cmd.head}` (reference line {cmd.line}) differs outside its `sorry` placeholders", line
    )


def prepare_reference(ref: Reference, lean: str, policy: LeanPolicy) -> Prepared | Violation | None:
    """Static layer for a reference-file task."""
    tokens = tokenize(lean)
    if not tokens:
        return None
    cmds = split_commands(tokens)
    while cmds and tokens[cmds[0][0]].text == "import":
        if tuple(t.text for t in tokens[cmds[0][0] : cmds[0][1]]) not in ref.imports:
            return Violation("import", RULES["import"], line_of(lean, tokens[cmds[0][0]].start))
        cmds.pop(0)
    if not cmds:
        return None
    added: list[tuple[int, int]] = []
    filled: list[tuple[int, int]] = []  # the fills alone (index ranges of the completion's tokens)
    helper_spans: list[tuple[int, int]] = []
    matched: list[tuple[int, int, list[tuple[int, int]]]] = []  # the reference's commands and their fills
    helpers = 0
    j = 0

    def take_helper(index: int) -> Violation | None:
        s, e = cmds[index]
        k = decl_keyword(tokens, s, e)
        if not policy.allow_reference_helpers or k is None:
            return None
        if tokens[k].text == "instance" and not policy.allows("instance"):
            return Violation("instance", RULES["instance"], line_of(lean, tokens[k].start), "instance")
        added.append((s, e))
        helper_spans.append((s, e))
        return Violation("", "")  # marker: taken

    for cmd in ref.commands:
        while True:
            if j >= len(cmds):
                return Violation("reference_drift", f"the reference's `{cmd.head}` (line {cmd.line}) is missing")
            s, e = cmds[j]
            texts = [t.text for t in tokens[s:e]]
            fills = _match(cmd, texts)
            if fills is not None:
                added.extend((s + a, s + b) for a, b in fills)
                filled.extend((s + a, s + b) for a, b in fills)
                matched.append((s, e, [(s + a, s + b) for a, b in fills]))
                j += 1
                break
            taken = take_helper(j)
            if taken is None:
                return _difference(cmd, list(tokens[s:e]), lean)
            if taken.rule:
                return taken
            helpers += 1
            j += 1
    while j < len(cmds):
        taken = take_helper(j)
        if taken is None:
            s, _ = cmds[j]
            rule = "helpers" if not policy.allow_reference_helpers else "reference_drift"
            return Violation(
                rule, "the completion adds a command after the reference's last one", line_of(lean, tokens[s].start)
            )
        if taken.rule:
            return taken
        helpers += 1
        j += 1
    for a, b in filled:
        violation = _command_in_fill(tokens, lean, a, b, policy)
        if violation is not None:
            return violation
    # Each fill and helper is named in the scopes, and read with the literal aliases, of everything
    # before it; both are followed once over the file (per span from the start was quadratic in the
    # number of helpers: 4,000 took 9.4 s of layer 1).
    added.sort()
    aliases_at = literal_aliases_before(tokens, lean, [a for a, _ in added])
    scopes: list[Scope] = []
    walked = 0
    for (a, b), aliases in zip(added, aliases_at, strict=True):
        for k in range(walked, a):
            scope_step(tokens, lean, k, scopes)
        walked = max(walked, a)
        violation = scan(tokens[a:b], lean, policy, ref.names, tuple(scopes), aliases)
        if violation is not None:
            return violation
    # A helper (or a fill's `where` part) that Lean's name resolution prefers to what a later
    # reference statement names changes that statement; a reference's theorems are audited by their
    # axioms only.
    captured = helper_shadowing(tokens, lean, helper_spans, matched)
    if captured is not None and not policy.allows("helper_shadowing"):
        at, helper, wrote = captured
        return Violation(
            "helper_shadowing",
            f"`{helper}` (a helper, or a fill's `where`/`let rec` part) captures the reference's `{wrote}` "
            f"that follows it: {RULES['helper_shadowing']}",
            line_of(lean, tokens[at].start),
            wrote,
        )
    # What the completion wrote (fills and helpers, in order) must leave the reference's scopes
    # as they were: a namespace opened mid-line in a fill would change what the audit's names mean.
    written = [t for a, b in added for t in tokens[a:b]]
    unbalanced = scope_violation(written, lean, 0, len(written))
    if unbalanced is not None:
        return unbalanced
    start = tokens[cmds[0][0]].start
    return Prepared(
        header=ref.header,
        code=lean[start:].rstrip() + "\n",
        audit_names=ref.audit_names,
        extracted=lean,
        helpers=helpers,
    )

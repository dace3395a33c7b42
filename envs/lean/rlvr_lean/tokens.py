"""A Lean 4 aware tokenizer: enough of Lean's lexical grammar that nothing can hide from the policy.

What it gets right, because a checker that gets it wrong can be fooled:

- comments: ``--`` to end of line, and block comments ``/- -/`` that *nest* (``/- /- -/ sorry -/``
  is one comment; ``/- -/ sorry`` is not); doc comments ``/-- -/`` and ``/-! -/`` are comments too;
- string literals with escapes, raw strings ``r"..."`` / ``r#"..."#``, and interpolated strings
  (``s!"..{code}.."``) whose ``{}`` parts are code and are tokenized as code;
- char literals (``'a'``, ``'\\n'``) apart from the ``'`` inside names (``h'``, ``cases'``);
- names with ``«»`` parts (``«sorry»`` reads as the name ``sorry``), dotted names, subscripts,
  ``ℝ``-style letter symbols, the ``!``/``?`` suffixes of ``exact?`` and ``#eval!``;
- name literals (`` `foo ``) are their own kind, so `` `sorry `` is not the ``sorry`` term.

Unterminated comments or strings raise ``LexError``: the policy rejects what it cannot read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from rlvr_envs.errors import RlvrEnvsError

IDENT, NUMBER, STRING, CHAR, NAME_LIT, HASH_CMD, SYMBOL = "ident", "number", "string", "char", "name", "hash", "symbol"


class LexError(RlvrEnvsError, ValueError):
    """The text cannot be tokenized as Lean (an unterminated comment or string)."""


class Token(NamedTuple):
    # A tuple, not a frozen dataclass: a 1 MB completion makes ~600,000 tokens, and a frozen
    # dataclass's __init__ (one object.__setattr__ per field) was a fifth of layer 1's time (round 13).
    kind: str
    text: str
    """For names: the name with ``«»`` removed (``«a b».c`` -> ``a b.c``); else the source text."""
    start: int
    end: int
    line_start: bool
    """True when the token is the first thing on its line at column 0. Lean does not need commands
    at column 0 (indented, after ``open X in``, after a comment): ``command_starts`` is the test
    for "may a command begin here"."""


# Lean 4.35's identifier characters, exactly (its `isLetterLike`, `isSubScriptAlnum`; measured on the
# test kernel, every letter or digit to U+2FFF and the mathematical alphanumerics, round 12): ASCII
# letters and `_`; Latin-1 and Latin Extended-A letters; Greek but λ Π Σ (binders), Coptic, Greek
# Extended; the letterlike block (ℕ ℝ ℃ ℘); script/double-struck/fraktur letters. Python's Unicode
# letters (Cyrillic, CJK, modifier letters such as Mathlib's postfix `ᶜ` `ᵀ` `ˣ`) are not: read as
# one name with what they touch, `sorryᶜ` hid `sorry` (and `x℃y`, one name to Lean, was three tokens).
_LETTER_LIKE = (
    "\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017f\u0391-\u039f\u03a1\u03a2\u03a4-\u03a9\u03b1-\u03ba\u03bc-\u03fb"
    "\u1f00-\u1ffe\u2100-\u214f\U0001d49c-\U0001d59f"
)
_ID_START = rf"[A-Za-z_{_LETTER_LIKE}]"
_ID_REST = rf"[A-Za-z0-9_'!?{_LETTER_LIKE}\u2080-\u2089\u2090-\u209c\u1d62-\u1d6a\u2c7c]"
_PART = rf"(?:«[^»]*»|{_ID_START}{_ID_REST}*)"
_IDENT_RE = rf"{_PART}(?:\.{_PART})*"
_MASTER = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<line_comment>--[^\n]*)"
    r"|(?P<block>/-)"
    r"|(?P<raw>r#*\")"
    r"|(?P<interp>[smf]![ \t\r\n]*\")"
    r"|(?P<string>\")"
    rf"|(?P<ident>{_IDENT_RE})"
    r"|(?P<number>0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<char>'(?:\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])')"
    rf"|(?P<name_lit>``?{_IDENT_RE})"
    r"|(?P<hash>#[a-zA-Z_][\w!?]*)"
    r"|(?P<symbol>:=|@\[|=>|<;>|<\||\|>|->|<-|\S)",
    re.UNICODE,
)
# `#` commands of Lean 4.35's core and of Mathlib, Batteries, Aesop and Plausible (the libraries a
# task's header imports) that run code, stop the file or wrap the next command. Lean's tokenizer
# reads a `#` word as the longest keyword of its token table that begins it, and what follows as the
# next token: `#exitx` is `#exit x`, `#evalé 1` is `#eval é 1`, `#guard_msgsin` is `#guard_msgs in`
# (measured on the 4.35 kernel, round 13). Read whole, such a word was one no rule knew, and mid-line
# a term (Mathlib's `#s`), so the command reached Lean unseen. A word that begins with one of these is
# split where Lean splits it (over-splitting only refuses more). The read-only commands (`#check`,
# `#print`, ...) are not split: a word glued to one stays an unknown `#` word, judged as before.
HASH_KEYWORDS = frozenset(
    "#eval #eval! #exec #run #exit #guard #guard_msgs #guard_expr "
    "#guard_target #guard_hyp #check_tactic #check_tactic_failure #check_simp #time #count_heartbeats "
    "#test #sample #leansearch #moogle #loogle #statesearch #with_exporting #dump_async #reset_grind_attrs "
    "#grind_lint #min_imports #minimize_imports #import_path #trans_imports #redundant_imports "
    "#long_names #list_linters #aesop_rules #discr_tree_key #discr_tree_simp_key #unfold? #kerodon "
    "#stacks_tag #find_syntax #check_assertions".split()
)
# one match per `#` word (alternatives tried longest first, as Lean's token table matches)
_HASH_PREFIX = re.compile("|".join(re.escape(k) for k in sorted(HASH_KEYWORDS, key=len, reverse=True)))


def _hash_keyword(text: str) -> str:
    """The part of a ``#`` word Lean reads as one token: the longest keyword of ``HASH_KEYWORDS``
    that begins it, else ``text`` whole."""
    m = _HASH_PREFIX.match(text)
    return m.group() if m is not None else text


_new_token = tuple.__new__  # ``Token(...)`` without the Python-level ``__new__`` NamedTuple generates

_INTERPOLATION_KEYWORDS = frozenset({"s!", "m!", "f!"})
"""Lean's keywords that read the string after them as interpolated (``{…}`` parts are code)."""
_STRING_BODY = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)


def _strip_guillemets(text: str) -> str:
    return text.replace("«", "").replace("»", "") if "«" in text else text


def _skip_block_comment(src: str, pos: int, n: int | None = None) -> int:
    """``pos`` is just after an opening ``/-``; returns the index after the matching ``-/`` (before
    ``n``, the end of the text read: ``len(src)`` by default)."""
    depth = 1
    n = len(src) if n is None else n
    while depth:
        nxt_open = src.find("/-", pos, n)
        nxt_close = src.find("-/", pos, n)
        if nxt_close < 0:
            raise LexError(f"unterminated comment /- starting before offset {pos}")
        if 0 <= nxt_open < nxt_close:
            depth += 1
            pos = nxt_open + 2
        else:
            depth -= 1
            pos = nxt_close + 2
        if pos > n:
            raise LexError("unterminated comment")
    return pos


MAX_INTERPOLATION_DEPTH = 64
"""``s!"{s!"{…}"}"`` nested deeper than this is refused (each level is a recursive call)."""


class _Lexer:
    def __init__(self, src: str, limit: int | None = None) -> None:
        self.src = src
        self.n = len(src) if limit is None else limit  # the text read ends here (a probe reads less)
        self.probe = limit is not None
        self.tokens: list[Token] = []
        self.depth = 0
        # Past the last `»`, a `«` that starts a token is an unterminated name escape to Lean;
        # read on, every one would send the name pattern to the end (quadratic in the length).
        self.last_close = src.rfind("»", 0, self.n)

    def add(self, kind: str, text: str, start: int, end: int) -> None:
        self.tokens.append(Token(kind, text, start, end, start == 0 or self.src[start - 1] == "\n"))

    def run(self, pos: int = 0, stop_at_brace: bool = False) -> int:
        src, n = self.src, self.n
        depth = 0
        match = _MASTER.match
        append = self.tokens.append
        last_close = self.last_close
        while pos < n:
            if src[pos] == "«" and pos > last_close:
                raise LexError(f"unterminated « name escape at offset {pos}")
            m = match(src, pos, n)
            if m is None:  # pragma: no cover - the symbol branch matches any non-space character
                raise LexError(f"cannot read offset {pos}")
            kind = m.lastgroup or SYMBOL
            end = m.end()
            if kind == "ws" or kind == "line_comment":
                pos = end
            elif kind == IDENT or kind == SYMBOL or kind == NUMBER:
                # the common tokens, inlined (a call per token was a third of the tokenizer's time)
                text = m.group()
                if kind == SYMBOL and stop_at_brace:
                    if text == "{":
                        depth += 1
                    elif text == "}":
                        if depth == 0:
                            return end
                        depth -= 1
                elif kind == IDENT and "«" in text:
                    text = _strip_guillemets(text)
                append(_new_token(Token, (kind, text, pos, end, pos == 0 or src[pos - 1] == "\n")))
                pos = end
            elif kind == "block":
                # `/--` and `/-!` open doc comments, tokens whose body Lean reads from after the
                # third character: `/--/` does not close itself (read as `/-` + `-/` it did, and
                # what Lean took for a doc comment up to the next `-/` layer 1 took for code)
                pos = _skip_block_comment(src, end + 1 if src[end : end + 1] in ("-", "!") else end, n)
            elif kind == "string" and self._after_interpolation_keyword():
                # `s! /- c -/ "{x}"`: Lean reads the string after the keyword, wherever it stands
                pos = self._interpolated(pos, end, record=False)
            elif kind == "string":
                body = _STRING_BODY.match(src, end, n)
                if body is None:
                    raise LexError(f"unterminated string at offset {pos}")
                if not self.probe and "{" in src[end : body.end()]:
                    self._unambiguous(pos, body.end())
                self.add(STRING, src[pos : body.end()], pos, body.end())
                pos = body.end()
            elif kind == "raw":
                hashes = end - pos - 2
                close = src.find('"' + "#" * hashes, end, n)
                if close < 0:
                    raise LexError(f"unterminated raw string at offset {pos}")
                stop = close + 1 + hashes
                self.add(STRING, src[pos:stop], pos, stop)
                pos = stop
            elif kind == "interp":
                pos = self._interpolated(pos, end)
            else:
                text = m.group()
                if kind == NAME_LIT:
                    text = _strip_guillemets(text)
                elif kind == HASH_CMD:
                    text = _hash_keyword(text)
                    end = pos + len(text)  # what follows a keyword is read again, as the next token
                self.add(kind, text, pos, end)
                pos = end
        if stop_at_brace:
            raise LexError("unterminated {…} in an interpolated string")
        return pos

    def _after_interpolation_keyword(self) -> bool:
        if not self.tokens:
            return False
        last = self.tokens[-1]
        return (
            last.kind == IDENT and last.text in _INTERPOLATION_KEYWORDS and self.src[last.start : last.end] == last.text
        )

    def _unambiguous(self, start: int, end: int) -> None:
        """A plain string holding ``{`` must end where it would end read as an interpolated string.

        Lean reads a string as interpolated (``{code}`` parts are code, which may hold strings of
        their own) after ``s!``/``m!``/``f!`` and after keywords this tokenizer cannot know
        (``throwError``, a library's): read the other way, a string can end elsewhere, and what one
        reader takes for a string the other takes for commands. ``panic!"{\ntheorem hard : False :=
        "\ntheorem hard : True := …\n-- "}"`` showed the reference's theorem to layer 1 and the
        weaker one to Lean (``ok`` 1.0 on the 4.35 kernel, round 12). Such a string is refused."""
        # Read as interpolated, within the plain string's own text (linear: each string once): the
        # other reading cannot end earlier, so it either ends at the same quote or goes past it.
        probe = _Lexer(self.src, limit=end)
        probe.depth = self.depth
        try:
            probe._interpolated(start, start + 1, record=False)
        except LexError:
            raise LexError(
                f"the string at offset {start} holds a `{{` whose code part (read as Lean reads an "
                "interpolated string) does not close inside it: read as interpolated it would end elsewhere, "
                "and which reading Lean takes depends on the word before it"
            ) from None

    def _interpolated(self, start: int, body: int, record: bool = True) -> int:
        """``s!"text {code} text"``: the text parts are a string, the ``{}`` parts are code."""
        src, n = self.src, self.n
        self.depth += 1
        if self.depth > MAX_INTERPOLATION_DEPTH:
            raise LexError(f"interpolated strings nested deeper than {MAX_INTERPOLATION_DEPTH} at offset {start}")
        if record:  # the keyword's letter (`s!` may stand apart from its string: `s! "{x}"`)
            self.add(IDENT, src[start : start + 1], start, start + 1)
        pos = body
        seg_start = body - 1
        while pos < n:
            ch = src[pos]
            if ch == "\\":
                pos += 2
            elif ch == '"':
                self.add(STRING, src[seg_start : pos + 1], seg_start, pos + 1)
                self.depth -= 1
                return pos + 1
            elif ch == "{":
                self.add(STRING, src[seg_start:pos], seg_start, pos)
                pos = self.run(pos + 1, stop_at_brace=True)
                seg_start = pos
            else:
                pos += 1
        raise LexError(f"unterminated interpolated string at offset {start}")


def tokenize(src: str) -> list[Token]:
    """The tokens of ``src`` without whitespace and comments; raises ``LexError`` on unreadable text."""
    lexer = _Lexer(src)
    lexer.run()
    return lexer.tokens


@lru_cache(maxsize=4096)
def tokenize_cached(src: str) -> tuple[Token, ...]:
    """``tokenize`` for task text (headers, statements, references): read once per distinct text."""
    return tuple(tokenize(src))


_LINE_BREAKS = ("\n", "\r", "\u2028", "\u2029", "\x0b", "\x0c", "\x85")
_LINE_BREAK = re.compile("[" + "".join(_LINE_BREAKS) + "]")
PREFIX_WORDS = frozenset("private protected noncomputable unsafe partial nonrec local scoped".split())
"""Words that may stand before a command and leave the place after them a command start."""


def command_starts(tokens: Sequence[Token], src: str) -> list[bool]:
    """For each token, whether a Lean command may begin there, as far as tokens tell without parsing.

    Lean ends a command wherever the next token cannot continue it and does not need column 0,
    so a command may begin: at the first token; at the first token of any line, however indented
    (spaces, tabs, other Unicode spaces) and whatever comments stand before it; after ``in``
    (``open X in``, ``set_option o v in``, chained); after a prefix word (``private``,
    ``noncomputable``, ``local``, ``scoped``, ...) or an ``@[...]`` attribute list that itself
    stands where a command may begin. Over-approximating is the safe side: a rule keyed on command
    starts then sees every place Lean could read a command."""
    out = [False] * len(tokens)
    opener: dict[int, int] = {}  # index of a `]` closing an `@[` list -> index of that `@[`
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.kind == SYMBOL and tok.text in ("@[", "["):
            stack.append(i)
        elif tok.kind == SYMBOL and tok.text == "]" and stack:
            j = stack.pop()
            if tokens[j].text == "@[":
                opener[i] = j
        if i == 0:
            out[i] = True
            continue
        prev = tokens[i - 1]
        # one search over the gap (most gaps are "" or " "), not one substring test per break
        gap_has_break = prev.end != tok.start and _LINE_BREAK.search(src, prev.end, tok.start) is not None
        out[i] = (
            gap_has_break
            or (prev.kind == IDENT and prev.text == "in")
            or (prev.kind == IDENT and prev.text in PREFIX_WORDS and out[i - 1])
            or (i - 1 in opener and out[opener[i - 1]])
        )
    return out


def line_of(src: str, offset: int) -> int:
    """1-based line number of ``offset`` in ``src``."""
    return src.count("\n", 0, offset) + 1


def base_name(text: str) -> str:
    """The last component of a dotted name without ``!``/``?`` suffixes: ``Lean.ofReduceBool`` -> ``ofReduceBool``."""
    return text.rsplit(".", 1)[-1].rstrip("!?")

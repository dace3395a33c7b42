"""Layer 1, the static policy: pure Python, always on, needs no Lean.

It reads only what the *completion adds* (everything the task's own header or reference holds is
allowed) and rejects, with the rule named, every construct that can make Lean accept a proof
that proves nothing: ``sorry``/``admit``, new axioms, ``unsafe``, ``partial`` definitions a later
declaration uses, ``@[extern]``/``@[implemented_by]``/``@[csimp]``, ``export``, unsafe options,
meta-programming that can forge declarations or redefine tactics (``run_cmd``, ``#eval``,
``elab``, ``macro``, ``syntax``, ``notation``, local instances, ...), ``import``, ``#exit``,
``native_decide`` / ``Lean.ofReduceBool`` (unless allowed) and statement drift.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rlvr_envs import Reason
from rlvr_lean.tokens import HASH_CMD, IDENT, SYMBOL, Token, base_name, line_of

# Rule ids, as named in a verdict's ``details["rule"]``.
RULES: dict[str, str] = {
    "sorry": "`sorry` / `admit` / `sorryAx` leave the proof unfinished",
    "axiom": "a new `axiom` / `constant` can assert anything",
    "unsafe": "`unsafe` code is not checked by the kernel",
    "partial": "a `partial` definition is opaque and must not be used by what is proved",
    "extern": "`@[extern]` replaces a definition by foreign code",
    "implemented_by": "`@[implemented_by]` replaces a definition's code",
    "csimp": "`@[csimp]` replaces a definition's code",
    "export": "`export` changes how names resolve",
    "unsafe_option": "`set_option debug.*` / `allowUnsafeReducibility` switch checks off",
    "meta_code": "`run_cmd` / `run_tac` / `run_elab` / `#eval` / `elab` / `by_elab` / `initialize` run meta code",
    "syntax_extension": "`macro` / `macro_rules` / `syntax` / `notation` / `infix` can redefine tactics and terms",
    "local_instance": "a local/scoped instance or `attribute [instance]` changes how statements elaborate",
    "import": "a completion may not add imports",
    "exit": "`#exit` stops checking the rest of the file",
    "native_decide": "`native_decide` / `Lean.ofReduceBool` trust the compiler, not the kernel",
    "context_change": "`variable` / `include` add hypotheses to the statement",
    "statement_drift": "the completion states a different theorem than the task",
    "reference_drift": "the completion changes a part of the reference that is not a `sorry`",
    "helpers": "new helper declarations are switched off for this environment",
    "scope": "the helpers leave a `namespace`/`section` open, so the theorem would not be the task's",
    "instance": "a helper `instance` in a reference file changes how later statements elaborate",
}

_META_WORDS = frozenset(
    "run_cmd run_tac run_elab run_meta elab elab_rules by_elab initialize builtin_initialize "
    "simproc dsimproc simproc_decl dsimproc_decl builtin_simproc".split()
)
_SYNTAX_WORDS = frozenset(
    "macro macro_rules syntax declare_syntax_cat notation notation3 infix infixl infixr prefix postfix "
    "binder_predicate declare_simp_like_tactic".split()
)
_META_HASH = frozenset({"#eval", "#eval!", "#exec", "#run"})
_NATIVE_NAMES = frozenset({"native_decide", "ofReduceBool", "reduceBool", "trustCompiler"})
_ATTR_CODE_RULES = {"extern": "extern", "implemented_by": "implemented_by", "csimp": "csimp"}

DECL_KEYWORDS = frozenset(
    "theorem lemma example def abbrev instance structure inductive class opaque axiom constant "
    "noncomputable private protected unsafe partial nonrec".split()
)
COMMAND_WORDS = frozenset(
    "import open namespace section end universe variable include omit set_option attribute export "
    "mutual local scoped macro macro_rules syntax notation infix infixl infixr prefix postfix elab elab_rules "
    "run_cmd run_meta run_elab initialize builtin_initialize deriving declare_syntax_cat".split()
)
MODIFIER_WORDS = frozenset("private protected noncomputable unsafe partial nonrec".split())
"""Words that may stand before a declaration keyword (with attributes ``@[...]``)."""


@dataclass(frozen=True)
class LeanPolicy:
    """What a completion may add. Defaults are strict; loosen per env.

    Args:
        allow_native_decide: accept ``native_decide`` / ``Lean.ofReduceBool`` (and the
            ``Lean.ofReduceBool`` axiom in the kernel audit).
        allow_helpers: statement tasks may put helper lemmas/definitions before the theorem.
        allow_reference_helpers: reference-file tasks may add new declarations between the
            reference's own.
        allow_rules: rule ids (see ``RULES``) to switch off, e.g. ``{"meta_code"}``.
        extra_forbidden: more names to reject wherever the completion uses them (rule ``forbidden``).
    """

    allow_native_decide: bool = False
    allow_helpers: bool = True
    allow_reference_helpers: bool = False
    allow_rules: frozenset[str] = field(default_factory=frozenset)
    extra_forbidden: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.allow_rules) - set(RULES))
        if unknown:
            raise ValueError(f"unknown policy rules {unknown}; the rules are {sorted(RULES)}")
        object.__setattr__(self, "allow_rules", frozenset(self.allow_rules))
        object.__setattr__(self, "extra_forbidden", frozenset(self.extra_forbidden))

    def allows(self, rule: str) -> bool:
        if rule == "native_decide" and self.allow_native_decide:
            return True
        return rule in self.allow_rules


@dataclass(frozen=True)
class Violation:
    """One broken rule, with where it was found (1-based line in the completion's Lean text)."""

    rule: str
    message: str
    line: int | None = None
    found: str | None = None

    @property
    def reason(self) -> Reason:
        # An unfinished proof is a wrong proof; everything else is an attempt to game the checker.
        return Reason.WRONG if self.rule == "sorry" else Reason.SANDBOX_VIOLATION

    def details(self) -> dict[str, object]:
        out: dict[str, object] = {"layer": "static", "rule": self.rule, "message": self.message}
        if self.line is not None:
            out["line"] = self.line
        if self.found is not None:
            out["found"] = self.found
        return out


def _attribute_spans(tokens: Sequence[Token]) -> list[bool]:
    """For each token, whether it stands inside ``@[...]`` or ``attribute [...]``."""
    inside = [False] * len(tokens)
    depth = 0
    for i, tok in enumerate(tokens):
        if depth:
            inside[i] = True
            if tok.kind == SYMBOL and tok.text == "[":
                depth += 1
            elif tok.kind == SYMBOL and tok.text == "]":
                depth -= 1
        elif tok.kind == SYMBOL and tok.text == "@[":
            depth = 1
        elif tok.kind == SYMBOL and tok.text == "[" and i and tokens[i - 1].text == "attribute":
            depth = 1
    return inside


def scan(tokens: Sequence[Token], src: str, policy: LeanPolicy) -> Violation | None:
    """The first rule the tokens break, or None. ``src`` is the text the tokens' offsets refer to."""
    attr = _attribute_spans(tokens)
    partial_names: dict[str, int] = {}
    n = len(tokens)

    def hit(rule: str, i: int, message: str | None = None) -> Violation | None:
        if policy.allows(rule):
            return None
        tok = tokens[i]
        return Violation(rule, message or RULES[rule], line_of(src, tok.start), tok.text)

    for i, tok in enumerate(tokens):
        text = tok.text
        found: Violation | None = None
        if tok.kind == IDENT:
            name = text[7:] if text.startswith("_root_.") else text
            base = base_name(name)
            if name in ("sorry", "admit") or base == "sorryAx":
                found = hit("sorry", i)
            elif name == "axiom" or (name == "constant" and tok.line_start):
                found = hit("axiom", i)
            elif name == "unsafe":
                found = hit("unsafe", i)
            elif name == "partial" and i + 2 < n and tokens[i + 1].text == "def":
                partial_names[base_name(tokens[i + 2].text)] = i
            elif attr[i] and base in _ATTR_CODE_RULES:
                found = hit(_ATTR_CODE_RULES[base], i)
            elif attr[i] and base in ("instance", "default_instance"):
                found = hit("local_instance", i)
            elif name == "instance" and i and tokens[i - 1].text in ("local", "scoped"):
                found = hit("local_instance", i)
            elif name == "export":
                found = hit("export", i)
            elif name == "set_option" and i + 1 < n:
                option = tokens[i + 1].text
                if option.startswith("debug.") or base_name(option) == "allowUnsafeReducibility":
                    found = hit("unsafe_option", i + 1)
            elif name in _META_WORDS:
                found = hit("meta_code", i)
            elif name in _SYNTAX_WORDS:
                found = hit("syntax_extension", i)
            elif name == "import":
                found = hit("import", i)
            elif base in _NATIVE_NAMES:
                found = hit("native_decide", i)
            elif name == "native" and ((i and tokens[i - 1].text == "+") or (i + 1 < n and tokens[i + 1].text == ":=")):
                found = hit("native_decide", i)
            elif name in ("variable", "include") and tok.line_start:
                found = hit("context_change", i)
            elif name in policy.extra_forbidden or base in policy.extra_forbidden:
                if "forbidden" not in policy.allow_rules:
                    found = Violation(
                        "forbidden", f"`{name}` is forbidden in this environment", line_of(src, tok.start), name
                    )
            elif partial_names and base in partial_names and partial_names[base] < i - 2:
                found = hit("partial", i, f"`{base}` is a `partial` definition and is used here")
        elif tok.kind == HASH_CMD:
            if text == "#exit":
                found = hit("exit", i)
            elif text in _META_HASH:
                found = hit("meta_code", i)
        if found is not None:
            return found
    return None


def rule_reason(rule: str) -> Reason:
    return Violation(rule, "").reason

"""Layer 1, the static policy: pure Python, always on, needs no Lean.

It reads only what the *completion adds* (everything the task's own header or reference holds is
allowed) and rejects, with the rule named, every construct that can make Lean accept a proof
that proves nothing: ``sorry``/``admit``, new axioms, ``unsafe``, ``partial`` definitions a later
declaration uses, ``@[extern]``/``@[implemented_by]``/``@[csimp]``, ``export``, unsafe options,
meta-programming that can forge declarations or redefine tactics (``run_cmd``, ``#eval``,
``elab``, ``macro``, ``syntax``, ``notation``, local instances, ...), attributes that register
meta code (``@[tactic]``, ``@[command_elab]``, ``@[init]``, ``@[norm_num]``, ...: only attributes
known to be harmless are accepted), ``initialize``, ``import``, ``#exit``, ``native_decide`` /
``Lean.ofReduceBool`` (unless allowed) and statement drift.

Kernel replay (``rlvr_lean.replay``) runs only with the file backend on modules without imports,
so a command elaborator registered by the completion (which could add declarations the kernel
never sees) must be stopped here; so must any
meta code or ``IO`` the completion writes (an aesop ``tactic`` rule or a tactic's config closure
can run it while the proof elaborates, and ``IO`` can print a forged verdict): it cannot be written
without naming Lean's meta API or ``IO``, which the completion may not name (rule ``meta_api``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rlvr_envs import Reason
from rlvr_lean.kernel_names import KERNEL_NAMES, declared_names
from rlvr_lean.options import (
    CONFIG_OPTIONS,
    config_value_problem,
    is_switch_off,
    option_allowed,
    option_position,
    option_value_problem,
    set_option_value_ok,
)
from rlvr_lean.tokens import HASH_CMD, IDENT, SYMBOL, Token, base_name, command_starts, line_of

# Rule ids, as named in a verdict's ``details["rule"]``.
RULES: dict[str, str] = {
    "sorry": "`sorry` / `admit` / `sorryAx` / `stop` leave the proof unfinished",
    "axiom": "a new `axiom` / `constant` can assert anything",
    "unsafe": "`unsafe` code is not checked by the kernel",
    "partial": "a `partial` definition is opaque and must not be used by what is proved",
    "extern": "`@[extern]` replaces a definition by foreign code",
    "implemented_by": "`@[implemented_by]` replaces a definition's code",
    "csimp": "`@[csimp]` replaces a definition's code",
    "export": "`export` changes how names resolve",
    "unsafe_option": "only options on an allow-list may be set (limits, `pp.*`, `trace.*`, `linter.*`, ...): "
    "`debug.*`, `bootstrap.*`, `compiler.*`, `allowUnsafeReducibility`, ... switch checks off or change trust",
    "tactic_config": "a tactic's configuration is evaluated while the proof elaborates and can ask for native "
    "evaluation: it must be a literal `{ field := literal }` over allowed fields, and named options and `+flags` "
    "must be on the allow-list (`rlvr_lean.options.CONFIG_OPTIONS`)",
    "meta_code": "`run_cmd` / `run_tac` / `run_elab` / `#eval` / `elab` / `by_elab` / `simproc` run meta code",
    "initialize": "`initialize` / `builtin_initialize` (and the `register_*` / `declare_*` commands) "
    "run code at start-up",
    "elab_attribute": "`@[tactic]` / `@[command_elab]` / `@[term_elab]` / `@[macro]` / `@[delab]` / parser attributes "
    "register meta code that runs while later commands elaborate",
    "builtin_attribute": "`@[builtin_*]` attributes register built-in meta code",
    "init_attribute": "`@[init]` / `@[builtin_init]` run code when the module is initialised",
    "extension_attribute": "`@[norm_num]` / `@[positivity]` / `@[simproc]` / `@[aesop … tactic]` / linter attributes "
    "plug meta code into a tactic",
    "unknown_attribute": "an attribute this policy does not know may register code: only attributes known to be "
    "harmless are accepted (switch the rule off with allow_rules to accept others)",
    "syntax_extension": "`macro` / `macro_rules` / `syntax` / `notation` / `infix` can redefine tactics and terms",
    "local_instance": "a local/scoped instance or `attribute [instance]` changes how statements elaborate",
    "import": "a completion may not add imports",
    "exit": "`#exit` stops checking the rest of the file",
    "hash_command": "only `#` commands that read the environment (`#check`, `#print`, `#reduce`, ...) are accepted: "
    "the others run code or filter Lean's messages (`#guard_msgs` drops the errors the verdict is read from)",
    "native_decide": "`native_decide` / `Lean.ofReduceBool` trust the compiler, not the kernel",
    "context_change": "`variable` / `include` add hypotheses to the statement",
    "statement_drift": "the completion states a different theorem than the task",
    "reference_drift": "the completion changes a part of the reference that is not a `sorry`",
    "helpers": "new helper declarations are switched off for this environment",
    "scope": "the completion leaves a `namespace`/`mutual` open (or closes the task's scope), so the theorem "
    "or the audit after it would not be read in the task's scope",
    "instance": "a helper `instance` in a reference file changes how later statements elaborate",
    "meta_api": "the completion names Lean's meta-programming API (`Lean.*`, `Aesop.*`, `Qq`, the elaborator "
    "monads `TacticM`/`MetaM`/..., `IO`): meta code it defines can be run by whatever evaluates a constant or a "
    "config (an aesop `tactic` rule, a `linarith` preprocessor) and add declarations the kernel never checks or "
    "print a forged verdict",
    "aesop_tactic_rule": "`add_aesop_rules … tactic …` / `aesop (add … tactic …)` run a tactic the completion "
    "defined, as the `@[aesop … tactic]` attribute does",
    "kernel_builtin": "the completion declares a constant the kernel interprets by name (`Nat.add`, `Nat.ble`, "
    "`String.mk`, `Quot`, ...: `rlvr_lean.kernel_names.KERNEL_NAMES`): the kernel's own arithmetic and its "
    "unfolding of that definition can then disagree, which proves `False` with no axiom",
}

_META_WORDS = frozenset(
    "run_cmd run_tac run_elab run_meta elab elab_rules by_elab "
    "simproc dsimproc simproc_decl dsimproc_decl builtin_simproc builtin_dsimproc".split()
)
_INIT_WORDS = frozenset({"initialize", "builtin_initialize"})
_REGISTER_KEYWORDS = frozenset(
    "register_option register_builtin_option register_simp_attr register_label_attr register_tactic_tag "
    "register_parser_alias register_linter_set register_error_explanation register_hint declare_config_elab "
    "declare_command_config_elab declare_aesop_rule_sets".split()
)
"""``register_*`` / ``declare_*`` commands known to be keywords: rejected wherever written, like
``variable``; any other ``register_*`` / ``declare_*`` word only where a command may begin."""
_CONTEXT_KEYWORDS = frozenset({"variable", "include"})
"""Lean keywords, never names: wherever they are written (not ``«variable»``) they are the command."""
_SORRY_NAMES = frozenset({"sorry", "admit"})
# Meta-level ways to close a goal without a proof; only meta code reaches them, so they are a
# second line behind the rules that stop meta code from running at all.
_SORRY_BASES = frozenset({"sorryAx", "admitGoal", "mkSorry", "mkLabeledSorry"})
_SYNTAX_WORDS = frozenset(
    "macro macro_rules syntax declare_syntax_cat notation notation3 infix infixl infixr prefix postfix "
    "binder_predicate declare_simp_like_tactic".split()
)
_META_HASH = frozenset({"#eval", "#eval!", "#exec", "#run"})
# `#` commands that only read the environment and report: an allowlist, because a `#` command can
# also run code (`#eval`, `#guard`) or wrap the next command and filter its messages
# (`#guard_msgs (drop all) in`), and the verdict is read from those messages.
READ_ONLY_HASH = frozenset(
    "#check #check_failure #print #reduce #synth #where #version #help #find #instances #whnf #simp #norm_num "
    "#conv #explode #adaptation_note #lint".split()
)
# Constants and tactics whose proofs trust compiled code (`Lean.ofReduceBool`): `bv_decide` and
# `bv_check` reflect through it, as `native_decide` does.
_NATIVE_NAMES = frozenset(
    {
        "native_decide",
        "ofReduceBool",
        "reduceBool",
        "ofReduceNat",
        "reduceNat",
        "trustCompiler",
        "bv_decide",
        "bv_check",
    }
)
_ATTR_CODE_RULES = {"extern": "extern", "implemented_by": "implemented_by", "csimp": "csimp"}
# Meta code (what could forge a declaration past the kernel, `Environment.addDeclWithoutChecking`)
# has to name the meta-programming API somewhere: its monad in a type, or a function in its body.
# Proofs never do, so a completion may not name these namespaces (first component) nor the
# monads and meta namespaces anywhere in a name (what `open Lean` in a header would leave short).
# `IO` too: a closure in a tactic's config (a `linarith` preprocessor or discharger) runs while the
# proof elaborates, and with `IO.println` + `IO.Process.exit` it could print a forged audit answer
# on the stdout the verdict is read from and stop Lean before the real one.
_META_ROOTS = frozenset({"Lean", "Aesop", "Qq", "Plausible", "ProofWidgets", "Elab", "Meta", "IO", "EIO", "BaseIO"})
_META_PARTS = frozenset(
    "Elab Meta TacticM MetaM CoreM TermElabM CommandElabM SimprocM RuleTac SingleRuleTac RuleTacDescr TacGen "
    "DelabM MacroM".split()
)
_META_LIBRARIES = frozenset({"Mathlib", "Batteries", "Std"})
"""Libraries whose meta code lives in ``…Tactic``/``…Meta``/``…Elab`` sub-namespaces."""

# Attributes that only tag a declaration the kernel has checked (a simp lemma is a proved
# theorem) or tune the compiler, never running code the completion wrote. Everything else is
# rejected: an allowlist, because Mathlib keeps adding attributes that register meta code.
SAFE_ATTRIBUTES = frozenset(
    "simp reducible irreducible semireducible inline noinline macro_inline always_inline specialize nospecialize "
    "never_extract unbox ext norm_cast push_cast coe simps to_additive to_dual reassoc elementwise nolint "
    "deprecated inherit_doc match_pattern elab_as_elim elab_without_expected_type induction_eliminator "
    "cases_eliminator refl symm trans congr gcongr mono bound fun_prop continuity measurability field_simps "
    "zify_simps qify_simps mfld_simps parity_simps nontriviality grind aesop pp_nodot pp_with_univ "
    "pp_using_anonymous_constructor class expose wf_preprocess seval simps! mk_iff stacks kerodon".split()
)
# Attributes handled by a rule of their own elsewhere in ``scan``.
_ATTRS_WITH_RULES = frozenset({"extern", "implemented_by", "csimp", "instance", "default_instance", "export"})
_ELAB_ATTRIBUTES = frozenset(
    "tactic command_elab term_elab macro delab app_delab app_unexpander quot_precheck incremental "
    "code_action_provider command_code_action hole_code_action tactic_code_action widget widget_module "
    "server_rpc_method run_builtin_parser_attribute_hooks run_parser_attribute_hooks key".split()
)
_ELAB_SUFFIXES = ("_elab", "_parser", "_delab", "_code_action", "_formatter", "_parenthesizer", "_unexpander")
_INIT_ATTRIBUTES = frozenset({"init", "builtin_init"})
_EXTENSION_ATTRIBUTES = frozenset("norm_num positivity simproc simprocs sevalprocs env_linter linter".split())
_OPEN_BRACKETS = frozenset({"(", "[", "{", "⟨", "⦃"})
_CLOSE_BRACKETS = frozenset({")", "]", "}", "⟩", "⦄"})

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


def attribute_heads(tokens: Sequence[Token]) -> dict[int, int]:
    """``{index of an attribute's name: index after its arguments}`` for every attribute in
    ``@[a, b x]`` and ``attribute [local a] n`` (``local``/``scoped``/``-`` before a name skipped)."""
    heads: dict[int, int] = {}
    n = len(tokens)
    i = 0
    while i < n:
        tok = tokens[i]
        opens = tok.kind == SYMBOL and (
            tok.text == "@[" or (tok.text == "[" and i > 0 and tokens[i - 1].text == "attribute")
        )
        if not opens:
            i += 1
            continue
        depth, head, j = 0, None, i + 1
        expect = True
        while j < n:
            t = tokens[j]
            if t.kind == SYMBOL and depth == 0 and t.text in ("]", ","):
                if head is not None:
                    heads[head] = j
                head = None
                if t.text == "]":
                    break
                expect = True
            elif t.kind == SYMBOL and (t.text in _OPEN_BRACKETS or t.text == "@["):
                depth += 1
            elif t.kind == SYMBOL and t.text in _CLOSE_BRACKETS:
                depth = max(0, depth - 1)
            elif expect and not (t.text in ("local", "scoped") or (t.kind == SYMBOL and t.text == "-")):
                head, expect = j, False
            j += 1
        if head is not None:  # an unclosed list: what Lean would reject anyway is judged too
            heads[head] = j
        i = j + 1
    return heads


def attribute_rule(tokens: Sequence[Token], head: int, end: int) -> str | None:
    """The rule an attribute breaks (None: harmless, or judged by another rule of ``scan``)."""
    name = tokens[head].text
    if name in _ATTRS_WITH_RULES:
        return None
    if name in _INIT_ATTRIBUTES:
        return "init_attribute"
    if name.startswith("builtin_"):
        return "builtin_attribute"
    if name in _ELAB_ATTRIBUTES or name.endswith(_ELAB_SUFFIXES):
        return "elab_attribute"
    if name in _EXTENSION_ATTRIBUTES:
        return "extension_attribute"
    if name == "aesop" and any(t.text == "tactic" for t in tokens[head + 1 : end]):
        return "extension_attribute"  # an aesop `tactic` rule runs a TacticM the completion defined
    if tokens[head].kind != IDENT or name not in SAFE_ATTRIBUTES:
        return "unknown_attribute"
    return None


def _sorry_like(name: str) -> bool:
    """``sorry`` / ``admit`` and the identifiers ``sorry!``, ``sorry?x``, ``admit!`` (Lean's names may
    carry ``!``/``?``, so these lex as one unknown name, not the keyword; rejected all the same)."""
    if name in _SORRY_NAMES:
        return True
    return name[:5] in _SORRY_NAMES and name[5:6] in ("!", "?")


def _continues_a_term(prev: Token) -> bool:
    """A symbol other than a closing bracket (``≤``, ``:=``, ``(``, ``,``) leaves a term to be written."""
    return prev.kind == SYMBOL and prev.text not in _CLOSE_BRACKETS


def _bracket_ends(tokens: Sequence[Token]) -> dict[int, int]:
    """``{index of an opening bracket: index of the bracket that closes it}``, in one pass."""
    ends: dict[int, int] = {}
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.kind != SYMBOL:
            continue
        if tok.text in _OPEN_BRACKETS or tok.text == "@[":
            stack.append(i)
        elif tok.text in _CLOSE_BRACKETS and stack:
            ends[stack.pop()] = i
    return ends


def _wraps_a_command(tokens: Sequence[Token], i: int, ends: dict[int, int]) -> bool:
    """Whether the ``#`` word at ``i`` is followed, after an optional bracketed spec, by ``in``:
    a command that wraps the next one (``#guard_msgs (drop all) in theorem …``)."""
    j = ends.get(i + 1, i) + 1
    return j < len(tokens) and tokens[j].kind == IDENT and tokens[j].text == "in"


_META_WORDS_ALONE = _META_ROOTS | _META_PARTS


def _names_meta_api(name: str) -> bool:
    if "." not in name:  # most names: one set lookup (layer 1's speed goal)
        return name in _META_WORDS_ALONE
    parts = name.split(".")
    if parts[0] in _META_ROOTS or any(p in _META_PARTS for p in parts):
        return True
    return parts[0] in _META_LIBRARIES and any(p in ("Tactic", "Meta", "Elab") for p in parts[1:])


def _aesop_tactic_rule(tokens: Sequence[Token], i: int, starts: list[bool], ends: dict[int, int]) -> int | None:
    """Where a ``tactic`` builder stands in ``add_aesop_rules …`` (up to the next command) or in an
    ``(add …)`` clause (``aesop``, ``aesop?``, ``aesop_cat``, … all take it) at ``i``; None when
    there is none."""
    tok = tokens[i]
    if tok.text == "add_aesop_rules":
        j = i + 1
        # up to the next command, or the next `add_aesop_rules` wherever it stands (each read once)
        while (
            j < len(tokens) and tokens[j].text != "add_aesop_rules" and not (starts[j] and _begins_a_command(tokens[j]))
        ):
            if tokens[j].kind == IDENT and tokens[j].text == "tactic":
                return j
            j += 1
        return None
    if tok.kind == SYMBOL and tok.text == "(" and i + 1 < len(tokens) and tokens[i + 1].text == "add":
        for j in range(i + 2, ends.get(i, len(tokens))):
            if tokens[j].kind == IDENT and tokens[j].text == "tactic":
                return j
    return None


def _begins_a_command(tok: Token) -> bool:
    return tok.kind == HASH_CMD or tok.text == "@[" or tok.text in DECL_KEYWORDS or tok.text in COMMAND_WORDS


def scan(
    tokens: Sequence[Token], src: str, policy: LeanPolicy, task_names: frozenset[str] = frozenset()
) -> Violation | None:
    """The first rule the tokens break, or None. ``src`` is the text the tokens' offsets refer to;
    ``task_names``: the names the task's own text writes (a statement about ``Lean.Name`` may be
    restated: ``meta_api`` judges only names the completion brings)."""
    attr = _attribute_spans(tokens)
    heads = attribute_heads(tokens)
    starts = command_starts(tokens, src)
    ends = _bracket_ends(tokens)
    partial_names: dict[str, int] = {}
    n = len(tokens)
    add_read_to = -1
    config_ends: dict[int, int] = {}  # the last token of each option read so far -> its tactic word

    def hit(rule: str, i: int, message: str | None = None) -> Violation | None:
        if policy.allows(rule):
            return None
        tok = tokens[i]
        return Violation(rule, message or RULES[rule], line_of(src, tok.start), tok.text)

    for i, tok in enumerate(tokens):
        text = tok.text
        found: Violation | None = None
        if i in heads:
            rule = attribute_rule(tokens, i, heads[i])
            if rule is not None:
                found = hit(rule, i, f"attribute `{text}`: {RULES[rule]}")
                if found is not None:
                    return found
        if tok.kind == IDENT:
            name = text[7:] if text.startswith("_root_.") else text
            base = base_name(name)
            # Lean's names may end in `?`/`!`, and libraries define such variants of commands
            # (Mathlib's `variable?`, lexed as one word here): a denied keyword so suffixed is
            # the keyword (`sorry!` likewise, in `_sorry_like`).
            word = name.rstrip("?!") or name
            if _sorry_like(name) or base in _SORRY_BASES:
                found = hit("sorry", i)
            elif name == "stop" and src[tok.start : tok.end] == "stop":
                # A keyword since Lean 4's `macro "stop" tacticSeq : tactic => `(tactic| repeat sorry)`;
                # `«stop»` is a plain name.
                found = hit("sorry", i, "`stop` discards the rest of the proof (it is `repeat sorry`)")
            elif word in _INIT_WORDS or (
                word.startswith(("register_", "declare_"))
                and word not in _SYNTAX_WORDS
                and (starts[i] or (word in _REGISTER_KEYWORDS and src[tok.start : tok.end] == name))
            ):
                found = hit("initialize", i)
            elif word == "axiom" or (word == "constant" and starts[i]):
                found = hit("axiom", i)
            elif word == "unsafe" or "unsafe" in base.lower():
                # `unsafeCast`, `unsafeBaseIO`, `ptrAddrUnsafe`: unsafe constants by name
                found = hit("unsafe", i)
            elif name == "partial" and i + 2 < n and tokens[i + 1].text == "def":
                partial_names[base_name(tokens[i + 2].text)] = i
            elif base in _ATTR_CODE_RULES:  # in an attribute list or anywhere else it is written
                found = hit(_ATTR_CODE_RULES[base], i)
            elif attr[i] and base in ("instance", "default_instance"):
                found = hit("local_instance", i)
            elif word == "instance" and i and tokens[i - 1].text in ("local", "scoped"):
                found = hit("local_instance", i)
            elif word == "export":
                found = hit("export", i)
            elif word == "set_option" and i + 1 < n:
                option = tokens[i + 1].text
                if not option_allowed(option) and option not in task_names:
                    found = hit("unsafe_option", i + 1, f"option `{option}`: {RULES['unsafe_option']}")
                elif not set_option_value_ok(tokens, i + 2):
                    found = hit("unsafe_option", i + 2, f"the value of `{option}` must be a literal")
            elif word in _META_WORDS:
                found = hit("meta_code", i)
            elif word in _SYNTAX_WORDS:
                found = hit("syntax_extension", i)
            elif word == "import":
                found = hit("import", i)
            elif base in _NATIVE_NAMES:
                found = hit("native_decide", i)
            elif name == "native" and ((i and tokens[i - 1].text == "+") or (i + 1 < n and tokens[i + 1].text == ":=")):
                found = hit("native_decide", i)
            elif word in _CONTEXT_KEYWORDS and src[tok.start : tok.end] == name:
                found = hit("context_change", i)
            elif word == "add_aesop_rules" and (j := _aesop_tactic_rule(tokens, i, starts, ends)) is not None:
                found = hit("aesop_tactic_rule", j)
            elif (
                _names_meta_api(name)
                and text not in task_names
                and not (i and tokens[i - 1].text == "set_option")  # an option, not a name
            ):
                found = hit("meta_api", i)
            elif name in policy.extra_forbidden or base in policy.extra_forbidden:
                if "forbidden" not in policy.allow_rules:
                    found = Violation(
                        "forbidden", f"`{name}` is forbidden in this environment", line_of(src, tok.start), name
                    )
            elif partial_names and base in partial_names and partial_names[base] < i - 2:
                found = hit("partial", i, f"`{base}` is a `partial` definition and is used here")
        elif (
            text == "("
            and tok.kind == SYMBOL
            and i + 2 < n
            and tokens[i + 2].text == ":="
            and tokens[i + 1].kind == IDENT
        ):
            found = _named_config(tokens, i, ends, config_ends, src, hit, policy.allows("native_decide"))
        elif (
            text == "+"
            and tok.kind == SYMBOL
            and i + 1 < n
            and tokens[i + 1].kind == IDENT
            and tokens[i + 1].start == tok.end
            and (tok.start == 0 or src[tok.start - 1].isspace())
            and i > 0
            and (i - 1 in config_ends or option_position(tokens, i - 1, src))
        ):
            # a `+flag` right after a tactic word (`simp +arith`), glued to its name: not a sum (`a+b`, `(a +b)`)
            config_ends[i + 1] = config_ends.get(i - 1, i - 1)
            if tokens[i + 1].text not in CONFIG_OPTIONS:
                rule = _config_rule(tokens[i + 1].text)
                found = hit(rule, i + 1, f"`+{tokens[i + 1].text}`: {RULES[rule]}")
        elif (
            text == "-"
            and tok.kind == SYMBOL
            and i + 1 < n
            and tokens[i + 1].kind == IDENT
            and tokens[i + 1].start == tok.end
            and i > 0
            and src[tok.start - 1].isspace()
            and (i - 1 in config_ends or option_position(tokens, i - 1, src))
            and is_switch_off(tokens, i, config_ends.get(i - 1, i - 1), src)
        ):
            # a `-flag` switching an option off (`simp -zeta`); `use -x` is a negated term
            config_ends[i + 1] = config_ends.get(i - 1, i - 1)
            if tokens[i + 1].text not in CONFIG_OPTIONS and tokens[i + 1].text != "native":
                found = hit("tactic_config", i + 1, f"`-{tokens[i + 1].text}`: {RULES['tactic_config']}")
        elif text == "(" and tok.kind == SYMBOL and i > add_read_to and i + 1 < n and tokens[i + 1].text == "add":
            # an `(add …)` clause nested in one already read was read with it (linear, not quadratic)
            add_read_to = ends.get(i, n)
            if (j := _aesop_tactic_rule(tokens, i, starts, ends)) is not None:
                found = hit("aesop_tactic_rule", j)
        elif tok.kind == HASH_CMD:
            if text == "#exit":
                found = hit("exit", i)
            elif text in _META_HASH:
                found = hit("meta_code", i)
            elif text not in READ_ONLY_HASH and (
                (starts[i] and not (i and _continues_a_term(tokens[i - 1]))) or _wraps_a_command(tokens, i, ends)
            ):
                # `#s` may be a term (Mathlib's `Finset.card` notation): a `#` word is judged where
                # a command may begin and no term is left half-written before it, and anywhere it
                # wraps the next command (`… in`).
                found = hit("hash_command", i, f"`{text}`: {RULES['hash_command']}")
        if found is not None:
            return found
    for j, declared in declared_names(tokens, src):
        if declared in KERNEL_NAMES and (found := hit("kernel_builtin", j, f"`{declared}`: {RULES['kernel_builtin']}")):
            return found
    return None


def _named_config(
    tokens: Sequence[Token], i: int, ends: dict[int, int], config_ends: dict[int, int], src: str, hit, native: bool
) -> Violation | None:
    """``(name := value)`` at ``i``: a configuration value (``config``, ``simp_config``, ...) must be a
    literal over allowed fields wherever it is written; any other named option right after a tactic
    word (or another option) must be on the allow-list. A named argument of a function
    (``foo (n := 3)``) stands after a term, not a tactic word, and is not judged."""
    name = tokens[i + 1].text
    close = ends.get(i, len(tokens))
    position = i > 0 and (i - 1 in config_ends or option_position(tokens, i - 1, src))
    if position:
        config_ends[close] = config_ends.get(i - 1, i - 1)
    if name == "config" or name.endswith(("config", "Config")):
        problem = config_value_problem(tokens, i + 3, close, _NATIVE_OPTION if native else frozenset())
        if problem is not None:
            at, what = problem
            rule = _config_rule(tokens[at].text)
            return hit(rule, at, f"{what}: {RULES[rule]}")
        return None
    if not position:
        return None
    if name not in CONFIG_OPTIONS:
        rule = _config_rule(name)
        return hit(rule, i + 1, f"option `{name}`: {RULES[rule]}")
    problem = option_value_problem(tokens, name, i + 3, close)
    if problem is not None:  # the value is evaluated: code the completion defines would run
        at, what = problem
        return hit("tactic_config", at, f"{what}: {RULES['tactic_config']}")
    return None


_NATIVE_OPTION = frozenset({"native"})


def _config_rule(option: str) -> str:
    """``native`` keeps its own rule (a task may allow native evaluation); every other option
    outside the allow-list is ``tactic_config``."""
    return "native_decide" if option == "native" else "tactic_config"


def rule_reason(rule: str) -> Reason:
    return Violation(rule, "").reason

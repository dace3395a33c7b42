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

Kernel replay (``rlvr_lean.replay``) runs where a Lean 4.35 file backend is at hand (the file
backend's own checks, and since round 11 a re-check of REPL/kimina passes: ``rlvr_lean.gate``),
not everywhere, so a command elaborator registered by the completion (which could add declarations
the kernel never sees) must be stopped here; where no replay ran, the gate does not honour a policy
that switched these rules off (``gate.REPLAY_BACKED``); so must any
meta code or ``IO`` the completion writes (an aesop ``tactic`` rule or a tactic's config closure
can run it while the proof elaborates, and ``IO`` can print a forged verdict): it cannot be written
without naming Lean's meta API or ``IO``, which the completion may not name (rule ``meta_api``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rlvr_lean.attributes import (
    _CLOSE_BRACKETS,
    _OPEN_BRACKETS,
    SAFE_ATTRIBUTES,
    _attribute_spans,
    attribute_heads,
    attribute_rule,
)
from rlvr_lean.kernel_names import Scope, kernel_declaration
from rlvr_lean.literals import literal_rebinding
from rlvr_lean.options import (
    CONFIG_OPTIONS,
    TERM_TACTICS,
    config_value_problem,
    is_switch_off,
    option_allowed,
    option_position,
    option_value_problem,
    set_option_value_ok,
)
from rlvr_lean.rules import RULES, LeanPolicy, Violation, rule_reason
from rlvr_lean.tokens import HASH_CMD, IDENT, SYMBOL, Token, base_name, command_starts, line_of

# Re-exported: the policy's vocabulary lived in this module before round 10's split.
__all__ = [
    "COMMAND_WORDS",
    "DECL_KEYWORDS",
    "MODIFIER_WORDS",
    "READ_ONLY_HASH",
    "RULES",
    "SAFE_ATTRIBUTES",
    "LeanPolicy",
    "Violation",
    "attribute_heads",
    "attribute_rule",
    "rule_reason",
    "scan",
]

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
# Meta-level words that read an interpolated string (`throwError "… {code} …"`): the tokenizer cannot
# know every such keyword, so the code in their braces would be read by Lean and not by layer 1.
# Proofs never write them (they are `Lean.throwError` & co. under `open Lean`).
_META_KEYWORDS = frozenset(
    "throwError throwErrorAt throwNamedError throwNamedErrorAt logInfo logInfoAt logWarning logWarningAt "
    "logError logErrorAt dbg_trace dbgTrace".split()
)
"""Libraries whose meta code lives in ``…Tactic``/``…Meta``/``…Elab`` sub-namespaces."""


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


def _sorry_like(name: str) -> bool:
    """``sorry`` / ``admit`` and the identifiers ``sorry!``, ``sorry?x``, ``admit!`` (Lean's names may
    carry ``!``/``?``, so these lex as one unknown name, not the keyword; rejected all the same)."""
    if name in _SORRY_NAMES:
        return True
    return name[:5] in _SORRY_NAMES and name[5:6] in ("!", "?")


def _continues_a_term(prev: Token) -> bool:
    """A symbol other than a closing bracket (``≤``, ``:=``, ``(``, ``,``) leaves a term to be written."""
    return prev.kind == SYMBOL and prev.text not in _CLOSE_BRACKETS


_TERM_WORDS = TERM_TACTICS | frozenset("by from at using with then else if do return in".split())
"""Words a term follows: a ``#`` word after one is an argument (``calc #s = 2``), never a command."""


def _may_be_a_keyword(word: str) -> bool:
    """Whether a ``#`` word may begin with a library's command keyword: every ``#`` command of Lean and
    of the libraries a task imports is ``#`` and a lowercase ASCII word (``#eval``, ``#test``, ``#find``;
    ``tokens.HASH_KEYWORDS``, ``READ_ONLY_HASH``), so ``#s``, ``#A``, ``#s₁``, ``#α`` cannot."""
    head = word[1:3]
    return len(head) == 2 and head.isascii() and head.isalpha() and head.islower()


def _hash_may_begin(tokens: Sequence[Token], i: int, starts: list[bool]) -> bool:
    """Whether a command may begin at the ``#`` word ``tokens[i]``. Lean ends a term wherever the
    next token is a command keyword, mid-line too: ``h.symm #test p`` runs Plausible's ``#test``
    (round 13; before, a ``#`` word was judged at line starts only, so a library's command this
    layer does not list, written after a finished term on the same line, reached Lean). A term is
    left half-written after a symbol (``≤``, ``(``, ``:=``) and after a word that takes one
    (``exact``, ``calc``, ``by``); there ``#s`` is Mathlib's card notation.

    Lean's tokenizer takes no notice of where a word stands: it reads the longest keyword of its token
    table that begins the word (``:= #printN.zero_add`` and ``(#printN.zero_add`` run ``#print`` on the
    test kernel: a parse error, then the command), and ``#`` alone only when none does. So a word that
    may begin with a keyword (a library's this layer does not list included: ``exact #foox`` is
    ``#foo x`` where a library has ``#foo``) is a command start wherever it stands (round 14)."""
    if i == 0 or _may_be_a_keyword(tokens[i].text):
        return True
    prev = tokens[i - 1]
    if _continues_a_term(prev):
        return False
    return starts[i] or not (prev.kind == IDENT and prev.text in _TERM_WORDS)


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


_META_WORDS_ALONE = _META_ROOTS | _META_PARTS | _META_KEYWORDS


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
    tokens: Sequence[Token],
    src: str,
    policy: LeanPolicy,
    task_names: frozenset[str] = frozenset(),
    scopes: Sequence[Scope] = (),
    literal_names: frozenset[str] = frozenset(),
) -> Violation | None:
    """The first rule the tokens break, or None. ``src`` is the text the tokens' offsets refer to;
    ``task_names``: the names the task's own text writes (a statement about ``Lean.Name`` may be
    restated: ``meta_api`` judges only names the completion brings); ``scopes``: the namespaces and
    sections the task's text leaves open where the tokens begin (``kernel_names.open_scopes``);
    ``literal_names``: the names the task's text derives from a literal class (``literal_aliases``)."""
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
                _hash_may_begin(tokens, i, starts) or _wraps_a_command(tokens, i, ends)
            ):
                # `#s` may be a term (Mathlib's `Finset.card` notation): a `#` word is judged where
                # a command may begin and no term is left half-written before it, and anywhere it
                # wraps the next command (`… in`).
                found = hit("hash_command", i, f"`{text}`: {RULES['hash_command']}")
        if found is not None:
            return found
    kernel = kernel_declaration(tokens, src, scopes)
    if kernel is not None and (found := hit("kernel_builtin", kernel[0], f"`{kernel[1]}`: {RULES['kernel_builtin']}")):
        return found
    rebound = literal_rebinding(tokens, src, scopes, literal_names)
    if rebound is not None:
        return hit("literal_rebinding", rebound[0], f"`{rebound[1]}`: {RULES['literal_rebinding']}")
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

"""The static policy's vocabulary: its rule ids (as a verdict names them), the policy options a
task or env sets, and what a broken rule reports. ``rlvr_lean.policy`` applies them."""

from __future__ import annotations

from dataclasses import dataclass, field

from rlvr_envs import Reason

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
    "helper_shadowing": "a helper in a reference file (or a `where`/`let rec` part of a fill) is named so that "
    "Lean resolves a name a later reference "
    "statement writes to it (through a namespace open there, field notation, or a name the reference leaves to be "
    "bound automatically): the statement would mean something else; give the helper a name of its own",
    "meta_api": "the completion names Lean's meta-programming API (`Lean.*`, `Aesop.*`, `Qq`, the elaborator "
    "monads `TacticM`/`MetaM`/..., `IO`): meta code it defines can be run by whatever evaluates a constant or a "
    "config (an aesop `tactic` rule, a `linarith` preprocessor) and add declarations the kernel never checks or "
    "print a forged verdict",
    "aesop_tactic_rule": "`add_aesop_rules … tactic …` / `aesop (add … tactic …)` run a tactic the completion "
    "defined, as the `@[aesop … tactic]` attribute does",
    "kernel_builtin": "the completion declares a constant the kernel interprets by name (`Nat.add`, `Nat.ble`, "
    "`String.mk`, `Quot`, ...: `rlvr_lean.kernel_names.KERNEL_NAMES`), in the namespaces open where it is "
    "declared (the task's header included): the kernel's own arithmetic and its unfolding of that definition "
    "can then disagree, which proves `False` with no axiom",
    "literal_rebinding": "the completion declares an instance of a class through which Lean elaborates literals "
    "(`OfNat`, `OfScientific`, `Neg`, `NatCast`, ..., or a name it derived from one): a literal, option values "
    "included, would then run the completion's code",
}


MAX_CODE_CHARS = 100_000
"""Layer 1 reads a completion in time linear in its length but at up to ~6.5 µs of CPU a character
on these machines (round 13, ``bench/lean_layer1_size.py``: a 1 MB completion of nested parentheses
took 6.5 s before Lean's budget began). The longest labelled-valid proof of the
shared cases is 2,451 characters; 100,000 is 40 times that and keeps layer 1 under a second."""


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
        max_code_chars: how many characters of Lean the completion may hold beyond the task's own
            text (its header and statement, or its reference file, which a completion may echo);
            past it the completion is ``format_error`` before it is read (default ``MAX_CODE_CHARS``).
    """

    allow_native_decide: bool = False
    allow_helpers: bool = True
    allow_reference_helpers: bool = False
    allow_rules: frozenset[str] = field(default_factory=frozenset)
    extra_forbidden: frozenset[str] = field(default_factory=frozenset)
    max_code_chars: int = MAX_CODE_CHARS

    def __post_init__(self) -> None:
        if self.max_code_chars <= 0:
            raise ValueError(f"max_code_chars must be positive, got {self.max_code_chars}")
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


def rule_reason(rule: str) -> Reason:
    return Violation(rule, "").reason

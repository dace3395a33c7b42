"""Allow-lists for what a completion may configure: tactic configuration and ``set_option``.

A tactic's configuration is a value Lean *evaluates* while the proof elaborates (``evalExpr``), and
some options change what is trusted (``decide``'s ``native`` goes through ``Lean.ofReduceBool``,
the compiler's word instead of the kernel's). Options were judged by a deny-list of spellings
(``native :=``, ``+native``), which a config built any other way passed: an anonymous constructor
``⟨false, true, true, false⟩``, ``.mk …``, a constant the completion defined, ``{ c with … }``,
``by exact …``. So here everything is an allow-list:

- a configuration *value* (``(config := V)``, and any ``…config := V``) must be a literal structure
  instance ``{ field := literal, … }`` whose fields are on ``CONFIG_OPTIONS`` and whose values are
  literals (numbers, ``true``/``false``, strings, ``.constructor``): nothing the completion wrote
  is evaluated, and no field outside the list is set however it is spelt;
- a named option after a tactic (``decide (kernel := true)``, ``simp (maxSteps := 10)``) and a
  ``+flag`` (``simp +arith``) must name an option on ``CONFIG_OPTIONS``;
- ``set_option NAME`` must name an option on ``SAFE_OPTIONS`` (or under ``SAFE_OPTION_PREFIXES``),
  or one the task's own text sets.

A ``-flag`` (``simp -zeta``) only switches an option off, and ``-x`` after a tactic is also a
negated term (``use -x``), so it is not judged here.
"""

from __future__ import annotations

from collections.abc import Sequence

from rlvr_lean.tokens import IDENT, NUMBER, STRING, SYMBOL, Token

CONFIG_OPTIONS = frozenset(
    # simp / dsimp / simp_all / norm_num / field_simp (Lean.Meta.Simp.Config)
    "maxSteps maxDischargeDepth contextual memoize singlePass zeta beta eta etaStruct iota proj decide arith "
    "autoUnfold dsimp failIfUnchanged ground unfoldPartialApp zetaDelta zetaUnused index implicitDefEqProofs "
    "catchRuntime maxSize letToHave instances "
    # decide (Lean.Parser.Tactic.DecideConfig) without `native`
    "kernel zetaReduce revert "
    # omega
    "splitDisjunctions splitNatSub splitNatAbs splitMinMax "
    # rw / nth_rewrite / conv
    "occs transparency offsetCnstrs newGoals "
    # linarith / nlinarith / polyrith / positivity (no `preprocessors`/`oracle`: code, not data)
    "discharger disch exfalso splitHypotheses splitNe degree "
    # aesop clauses and options
    "simp_config rule_sets terminal warnOnNonterminal maxRuleApplications maxRuleApplicationDepth "
    "maxNormIterations maxSimpSuccesses maxGoals strategy enableSimp useSimpAll useDefaultSimpSet enableUnfold "
    # grind
    "splits ematch gen matchEqs splitMatch splitIte splitIndPred splitImp canonHeartbeats ring linarith cutsat "
    "lia ac funext lookahead verbose clean "
    # command-level named arguments written after a command word (`instance (priority := 2000)`)
    "priority config".split()
)
"""Tactic configuration fields and named options a completion may set (``native`` is not one)."""

SAFE_OPTIONS = frozenset(
    "maxHeartbeats maxRecDepth maxErrors synthInstance.maxHeartbeats synthInstance.maxSize maxSynthPendingDepth "
    "Elab.async autoImplicit relaxedAutoImplicit warningAsError push_neg.use_distrib simprocs "
    "exponentiation.threshold diagnostics diagnostics.threshold profiler profiler.threshold "
    "tactic.skipAssignedInstances tactic.hygienic checkBinderAnnotations showInferredTerms "
    "match.ignoreUnusedAlts linarith.oracle.simplex".split()
)
"""Options a completion may set: limits, elaboration conveniences, messages. Not ``debug.*``,
``bootstrap.*``, ``compiler.*``, ``interpreter.*``, ``allowUnsafeReducibility``, ...: checks or
trust."""
SAFE_OPTION_PREFIXES = ("pp.", "format.", "trace.", "linter.", "backward.", "profiler.", "grind.")


def option_allowed(name: str) -> bool:
    return name in SAFE_OPTIONS or name.startswith(SAFE_OPTION_PREFIXES)


# Tokens after which the next name is a tactic (or command) word, so that `(x := …)` right after
# it configures that tactic rather than naming a function's argument. Not `(`, `|`, `<|`: a term
# follows them as often (`(a +b)`, `|a +b|`); a config value and `+native` are judged anywhere.
_HEAD_BEFORE = frozenset(
    "by ; <;> · . => try repeat all_goals any_goals first focus then else do case next on_goal".split()
)
_LITERAL_WORDS = frozenset({"true", "false"})


def is_head(tokens: Sequence[Token], k: int, src: str) -> bool:
    """Whether the name at ``k`` stands where a tactic (or command) word does: first on its line,
    or after ``by``, ``;``, ``<;>``, ``·``, ``try``, ... ."""
    tok = tokens[k]
    if tok.kind != IDENT or "." in tok.text:
        return False
    if k == 0:
        return True
    prev = tokens[k - 1]
    return "\n" in src[prev.end : tok.start] or prev.text in _HEAD_BEFORE


def config_value_problem(
    tokens: Sequence[Token], start: int, end: int, extra: frozenset[str] = frozenset()
) -> tuple[int, str] | None:
    """``tokens[start:end]`` is a configuration value; None when it is a literal structure instance
    over allowed fields (``CONFIG_OPTIONS`` and ``extra``), else (index, what is wrong)."""
    if start >= end or tokens[start].text != "{" or tokens[end - 1].text != "}":
        return start if start < end else max(0, start - 1), "a configuration must be a literal `{ field := value }`"
    i = start + 1
    last = end - 1
    while i < last:
        tok = tokens[i]
        if tok.kind == SYMBOL and tok.text == ",":
            i += 1
            continue
        if tok.kind != IDENT or i + 1 >= last or tokens[i + 1].text != ":=":
            return i, f"`{tok.text}` in a configuration: only `field := literal` entries are accepted"
        if tok.text not in CONFIG_OPTIONS and tok.text not in extra:
            return i, f"configuration field `{tok.text}` is not on the allow-list"
        i += 2
        j = i
        while j < last and not (tokens[j].kind == SYMBOL and tokens[j].text == ","):
            if j + 1 < last and tokens[j].kind == IDENT and tokens[j + 1].text == ":=":
                break  # the next field (entries may be separated by new lines)
            if not _literal(tokens, j):
                return j, f"`{tokens[j].text}` in a configuration value: only literals are accepted"
            j += 1
        if j == i:
            return i, "a configuration field without a value"
        i = j
    return None


def _literal(tokens: Sequence[Token], j: int) -> bool:
    tok = tokens[j]
    if tok.kind in (NUMBER, STRING) or (tok.kind == IDENT and tok.text in _LITERAL_WORDS):
        return True
    if tok.kind == SYMBOL and tok.text == "." and j + 1 < len(tokens) and tokens[j + 1].kind == IDENT:
        return True  # `.reducible`: a constructor of the field's own type
    # the constructor's name after that `.`
    return tok.kind == IDENT and j > 0 and tokens[j - 1].text == "." and tokens[j - 1].end == tok.start

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

- an option's *value* (``(maxSteps := V)``, ``set_option NAME V``) must be a literal too: the value
  is a term Lean evaluates, so ``(maxSteps := f 3)`` ran code the completion defined. Only the
  options whose value is by design a tactic (``disch``, ``discharger``: read by the rest of the
  layer as tactics) or rule-set names (``rule_sets``) take more;
- a ``-flag`` (``simp -zeta``) is read as an option where one may stand, unless the word before
  takes a term there (``use -x``, ``exact -h``: ``TERM_TACTICS``) or the line continues a term;
- where an option may stand: after a word first on its line or after ``by``/``;``/``<;>``/...
  (``is_head``), and after any word of ``CONFIG_TACTICS`` wherever it stands (``first | decide
  +x``, ``(decide +x)``, ``rfl <|> decide +x``).
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
    "priority config "
    # linear_combination (`(exp := 2)`, `(norm := ring_nf)`)
    "exp norm".split()
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


CONFIG_TACTICS = frozenset(
    "simp simp_all dsimp simpa simp_arith simp_all_arith simp_rw simp_wf norm_num norm_num1 decide omega bv_omega "
    "grind cutsat lia aesop aesop_cat linarith nlinarith polyrith positivity field_simp ring_nf push_cast norm_cast "
    "rw rewrite rwa erw nth_rewrite nth_rw unfold delta conv exact? apply? rw? simp? hint tauto itauto "
    "cc ac_rfl ac_nf abel abel_nf group noncomm_ring fun_prop gcongr bound continuity measurability "
    "interval_cases fin_cases decide! zify qify rify lift refine_lift peel bv_normalize apply_rules solve_by_elim "
    "congr! convert convert_to linear_combination linear_combination' ring1 abel1 module match_scalars "
    "compute_degree monicity mono split_ifs".split()
)
"""Tactic words whose syntax reads options after them (``optConfig``: ``+x``, ``-x``, ``(x := v)``,
``(config := v)``): wherever such a word stands, an option may follow it (with ``?``/``!`` removed)."""

TERM_TACTICS = frozenset(
    "exact refine refine' use use! exists existsi apply linear_combination linear_combination' calc show change "
    "exact_mod_cast apply_mod_cast specialize have let set obtain rcases rintro intro intros cases cases' "
    "induction induction' generalize convert convert_to suffices trans by_cases by_contra by_contra! match fun "
    "absurd wlog subst revert clear congr ext apply_fun contrapose contrapose! push_neg calc_step "
    " choose rsuffices replace exacts constructorm casesm".split()
)
"""Tactic words after which a ``-x`` is a negated term (``use -x``), never a switch-off."""

TACTIC_VALUED = frozenset({"disch", "discharger", "norm"})
"""Options whose value is a tactic (read by the rest of the layer as any tactic is), not data."""
NAME_VALUED = frozenset({"rule_sets"})
"""Options whose value is a list of names (``[A, -B]``), not evaluated."""
_PRIORITY_WORDS = frozenset({"low", "mid", "high", "default"})


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
    if prev.text == "." and prev.end == tok.start and k >= 2 and tokens[k - 2].end == prev.start:
        # `(h).rec (motive := …)`: a `.` glued on both sides is a field access of the term before
        # it (a term's function, whose named arguments are data); the `.` bullet has a space after
        return False
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


def option_position(tokens: Sequence[Token], k: int, src: str) -> bool:
    """Whether an option may follow the word at ``k``: a tactic word by its place (``is_head``), or
    by its name (``CONFIG_TACTICS``) wherever it stands."""
    tok = tokens[k]
    if tok.kind != IDENT:
        return False
    return tok.text in CONFIG_TACTICS or tok.text.rstrip("?!") in CONFIG_TACTICS or is_head(tokens, k, src)


def is_switch_off(tokens: Sequence[Token], i: int, head: int, src: str) -> bool:
    """``tokens[i]`` is a ``-`` glued to the name after it, with a space before it, right after an
    option position whose word is ``tokens[head]``: whether Lean reads it as a switch-off
    (``simp -zeta``) rather than a negated term (``use -x``) or a subtraction on a continued line."""
    word = tokens[head].text
    if word in TERM_TACTICS or word.rstrip("?!") in TERM_TACTICS:
        return False
    if word in CONFIG_TACTICS or word.rstrip("?!") in CONFIG_TACTICS:
        return True
    # a word first on its line after a symbol that leaves a term open (`=`, `+`, `(`) continues it
    if head > 0 and "\n" in src[tokens[head - 1].end : tokens[head].start]:
        prev = tokens[head - 1]
        if prev.kind == SYMBOL and prev.text not in (")", "]", "}", "⟩", "⦄"):
            return False
    return True


def option_value_problem(tokens: Sequence[Token], name: str, start: int, end: int) -> tuple[int, str] | None:
    """``tokens[start:end]`` is the value of the named option ``name``; None when it is a literal (or,
    for ``TACTIC_VALUED`` options, a tactic; for ``NAME_VALUED``, a list of names), else (index,
    what is wrong)."""
    if name in TACTIC_VALUED:
        return None
    if start >= end:
        return max(0, start - 1), f"option `{name}` without a value"
    names = name in NAME_VALUED
    for j in range(start, end):
        tok = tokens[j]
        if _literal(tokens, j) or (tok.kind == SYMBOL and tok.text in ("[", "]", ",")):
            continue
        if tok.kind == SYMBOL and tok.text == "-" and j + 1 < end and (names or tokens[j + 1].kind == NUMBER):
            continue  # a negative number; a rule set switched off (`[-default]`)
        if tok.kind == IDENT and (names or (name == "priority" and tok.text in _PRIORITY_WORDS)):
            continue
        if name == "priority" and tok.kind == SYMBOL and tok.text in ("+", "(", ")"):
            continue  # `(priority := high + 1)`: Lean's `prio` syntax, folded by a macro, not evaluated code
        return j, f"`{tok.text}` in the value of option `{name}`: only literals are accepted"
    return None


def set_option_value_ok(tokens: Sequence[Token], k: int) -> bool:
    """``set_option NAME V``: the value at ``k`` (when there is one) is a literal, as Lean's own
    parser requires (a number, a string, ``true``/``false``)."""
    if k >= len(tokens):
        return True
    tok = tokens[k]
    return tok.kind in (NUMBER, STRING) or (tok.kind == IDENT and tok.text in _LITERAL_WORDS)

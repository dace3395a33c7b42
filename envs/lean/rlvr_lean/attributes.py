"""Attributes a completion may write: an allow-list (``SAFE_ATTRIBUTES``), and which rule every
other attribute breaks. Split from ``rlvr_lean.policy`` (round 10) so each file holds one concern."""

from __future__ import annotations

from collections.abc import Sequence

from rlvr_lean.tokens import IDENT, SYMBOL, Token

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

"""Layer 1: commands are found where Lean reads them, not only at column 0 (no Lean needed).

Lean ends a command wherever the next token cannot continue it, so ``variable`` / ``include``
(keywords, never names) and the ``register_*`` / ``declare_*`` commands work indented, after
``open X in`` and other prefixes, after comments and after any whitespace. Each variant below
must be rejected with its rule; the honest look-alikes at the end must pass.
"""

from __future__ import annotations

import itertools

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.shape import Prepared
from rlvr_lean.tokens import command_starts, tokenize
from rlvr_lean.verifier import LeanVerifier, static_check

HEADER = "import Mathlib\nimport Aesop\n\nopen BigOperators Real Nat\n\n"
STATEMENT = "theorem t1 (a b : ℕ) (h : a = b) : b = a := by"
TASK = Task(id="t1", prompt="p", answer={"header": HEADER, "statement": STATEMENT})
NONE = LeanVerifier(backend="none")
THEOREM = "theorem t1 (a b : ℕ) (h : a = b) : b = a := "

PREFIXES = {
    "column 0": "",
    "two spaces": "  ",
    "a tab": "\t",
    "deep indent": " " * 12,
    "no-break space": "\u00a0",
    "ideographic space": "\u3000",
    "em space": "\u2003",
    "open X in": "open Nat in ",
    "open X in, newline": "open Nat in\n  ",
    "nested in chain": "open Nat in set_option maxHeartbeats 0 in open Real in ",
    "open with parts": "open Nat (succ) in ",
    "block comment": "/- harmless -/ ",
    "doc comment on the line before": "/-- doc -/\n",
    "line comment before": "-- note\n    ",
    "nested comment": "/- a /- b -/ c -/   ",
    "after a one-line proof": "lemma aux : True := trivial\n   ",
    "private": "private ",
    "noncomputable": "noncomputable ",
    "local": "local ",
    "scoped": "scoped ",
    "attribute list": "@[simp] ",
}

COMMANDS = {
    "variable": ("variable (cheat : False)", "context_change"),
    "variable in": ("variable (cheat : False) in", "context_change"),
    "include": ("include cheat", "context_change"),
    "register_option": ("register_option foo : Bool := { defValue := true }", "initialize"),
    "register_simp_attr": ("register_simp_attr my_simps", "initialize"),
    "register_label_attr": ("register_label_attr my_label", "initialize"),
    "declare_config_elab": ("declare_config_elab elabMyConfig MyConfig", "initialize"),
    "declare_aesop_rule_sets": ("declare_aesop_rule_sets [Mine]", "initialize"),
}


@pytest.mark.parametrize(("prefix", "command"), list(itertools.product(PREFIXES, COMMANDS)))
def test_a_command_is_rejected_wherever_lean_would_read_it(prefix, command):
    text, rule = COMMANDS[command]
    completion = f"```lean4\n{PREFIXES[prefix]}{text}\n\n{THEOREM}h.symm\n```"
    verdict = NONE.verify(TASK, completion)
    assert verdict.reason is Reason.SANDBOX_VIOLATION and verdict.reward == 0.0, (prefix, command, verdict)
    assert verdict.details["layer"] == "static" and verdict.details["rule"] == rule


@pytest.mark.parametrize(
    "completion",
    [
        # Inside the proof, indented under the theorem: Lean ends the tactic block and reads the command.
        THEOREM + "by\n  exact h.symm\n  variable (cheat : False)",
        THEOREM + "by\n  exact h.symm\n  register_simp_attr my_simps",
        # On the same line as the end of a term.
        THEOREM + "h.symm variable (cheat : False)",
        THEOREM + "h.symm register_simp_attr my_simps",  # a known command keyword: wherever it is written
        "lemma aux : True := trivial include cheat\n" + THEOREM + "h.symm",
        # In a section, twice nested.
        "section\n  namespace X\n    variable {cheat : False}\n  end X\nend\n" + THEOREM + "h.symm",
        # After a CRLF line break.
        "lemma aux : True := trivial\r\n  declare_config_elab e C\r\n" + THEOREM + "h.symm",
    ],
)
def test_more_places_a_command_hides(completion):
    verdict = NONE.verify(TASK, f"```lean4\n{completion}\n```")
    assert verdict.reason is Reason.SANDBOX_VIOLATION, verdict.details
    assert verdict.details["rule"] in ("context_change", "initialize")


@pytest.mark.parametrize(
    "completion",
    [
        "by\n  have «variable» : True := trivial\n  exact h.symm",  # a name, escaped: not the keyword
        "by\n  have h2 := Nat.variable_free\n  exact h.symm",  # a dotted name holding the word
        "lemma register_free (x : ℕ) : x = x := rfl\n\n" + THEOREM + "h.symm",  # a declared name after `lemma`
        "by\n  have variables_ok : True := trivial\n  exact h.symm",
        "by\n  set_option maxHeartbeats 400000 in\n  exact h.symm",
        "open Nat in\n" + THEOREM + "h.symm",
    ],
)
def test_honest_look_alikes_pass(completion):
    assert isinstance(static_check(TASK, completion, LeanPolicy()), Prepared)


def test_command_starts_over_approximates_where_lean_may_begin_a_command():
    src = "open Nat in set_option x 1 in\n  @[simp] private theorem a : True := trivial  lemma b := c"
    tokens = tokenize(src)
    starts = {t.text for t, s in zip(tokens, command_starts(tokens, src)) if s}
    assert {"open", "set_option", "@[", "private", "theorem"} <= starts
    assert "lemma" not in starts and "trivial" not in starts  # mid-line after a term: no prefix says so

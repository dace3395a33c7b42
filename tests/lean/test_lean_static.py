"""Layer 1, the static policy: the shared cases, every exploit class, the tokenizer, reference files.

Runs with no Lean installed. Verdicts come from ``LeanVerifier(backend="none")``: what the static
layer rejects gets reward 0 with its rule; what it accepts gets ``verifier_error`` (needs Lean).
"""

from __future__ import annotations

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean.policy import RULES, LeanPolicy
from rlvr_lean.shape import Prepared, extract_lean, parse_statement, prepare_statement
from rlvr_lean.tokens import LexError, tokenize
from rlvr_lean.verifier import LeanVerifier, static_check
from tests.helpers.data import read_jsonl


def _cases() -> list[dict]:
    return read_jsonl("lean_cases.jsonl")  # read per test: without the peer data only these skip


HEADER = "import Mathlib\nimport Aesop\n\nopen BigOperators Real Nat\n\n"
STATEMENT = "theorem t1 (a b : ℕ) (h : a = b) : b = a := by"
TASK = Task(id="t1", prompt="p", answer={"header": HEADER, "statement": STATEMENT})
NONE = LeanVerifier(backend="none")


def modes(row: dict) -> dict[str, str]:
    return {
        "body": row["proof"],
        "restated": row["statement"] + row["proof"],
        "with header": row["header"] + row["statement"] + row["proof"],
        "fenced after think": f"<think>maybe sorry?</think>\n```lean4\n{row['statement']}{row['proof']}\n```",
    }


def task_of(row: dict) -> Task:
    return Task(id=row["id"], prompt="p", answer={"header": row["header"], "statement": row["statement"]})


def test_every_sorry_negative_is_rejected_statically():
    negatives = [r for r in _cases() if r["id"].startswith("minif2f_sorry/")]
    assert len(negatives) == 60
    for row in negatives:
        for mode, completion in modes(row).items():
            verdict = NONE.verify(task_of(row), completion)
            assert verdict.reward == 0.0 and verdict.reason is Reason.WRONG, (row["id"], mode, verdict)
            assert verdict.details["layer"] == "static" and verdict.details["rule"] == "sorry", (row["id"], mode)


def test_no_valid_proof_is_rejected_statically():
    valid = [r for r in _cases() if r["expected"] is True]
    assert len(valid) == 109  # 98 kimina + 11 REPL
    for row in valid:
        for mode, completion in modes(row).items():
            result = static_check(task_of(row), completion, LeanPolicy())
            assert isinstance(result, Prepared), (row["id"], mode, result)
            # Without Lean: verifier_error, never a wrong answer and never a reward.
            verdict = NONE.verify(task_of(row), completion)
            assert verdict.reason is Reason.VERIFIER_ERROR and verdict.reward == 0.0
            assert "install" in verdict.details["error"] or "lean_project" in verdict.details["error"]


def test_assembled_code_uses_the_task_statement_and_the_completion_proof():
    row = next(r for r in _cases() if r["id"] == "kimina/goedel-lean_workbook_10009")
    prepared = static_check(task_of(row), row["header"] + row["statement"] + row["proof"], LeanPolicy())
    assert isinstance(prepared, Prepared)
    assert prepared.header.startswith("import Mathlib") and "import" not in prepared.code
    assert prepared.code.startswith(row["statement"].rstrip(" :=").rstrip())
    assert "nlinarith" in prepared.code and prepared.audit_names == ("lean_workbook_10009",)
    assert prepared.ref_declaration.startswith("theorem _root_._rlvr_ref_") and prepared.ref_declaration.endswith(
        ":= sorry"
    )


THEOREM = "theorem t1 (a b : ℕ) (h : a = b) : b = a := "
EXPLOITS = {
    "sorry": ("by sorry", "sorry"),
    "admit": ("by admit", "sorry"),
    "sorryAx": ("sorryAx _ false", "sorry"),
    "guillemet sorry": ("by exact «sorry»", "sorry"),
    "sorry after a nested comment": ("by /- a /- b -/ c -/ sorry", "sorry"),
    "new axiom": ("axiom cheat : False\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := (cheat).elim", "axiom"),
    "unsafe": ("unsafe def x : Nat := 0\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm", "unsafe"),
    "partial used": (
        "partial def loop (n : Nat) : Nat := loop n\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := by\n  have := loop 0\n  exact h.symm",
        "partial",
    ),
    "extern": (
        '@[extern "c_fn"] def f (n : Nat) : Nat := n\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm',
        "extern",
    ),
    "implemented_by": (
        "@[implemented_by g] def f (n : Nat) : Nat := n\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm",
        "implemented_by",
    ),
    "csimp": ("attribute [csimp] foo\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm", "csimp"),
    "export": ("export Nat (succ)\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm", "export"),
    "debug option": (
        "set_option debug.skipKernelTC true in\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm",
        "unsafe_option",
    ),
    "allowUnsafeReducibility": (
        "set_option allowUnsafeReducibility true\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm",
        "unsafe_option",
    ),
    "run_cmd": ('run_cmd Lean.logInfo "x"\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm', "meta_code"),
    "run_tac": ("by\n  run_tac Lean.Elab.Tactic.evalTactic (← `(tactic| sorry))", "meta_code"),
    "run_elab": ("run_elab pure ()\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm", "meta_code"),
    "#eval addDecl": ("#eval Lean.addDecl default\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm", "meta_code"),
    "elab": ('elab "cheat" : tactic => pure ()\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := by cheat', "meta_code"),
    "by_elab": ("by_elab return default", "meta_code"),
    "macro redefines a tactic": (
        'macro "nlinarith" : tactic => `(tactic| sorry)\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := by nlinarith',
        "syntax_extension",
    ),
    "macro_rules": (
        "macro_rules | `(tactic| rfl) => `(tactic| skip)\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := by rfl",
        "syntax_extension",
    ),
    "syntax": ('syntax "cheat" : tactic\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm', "syntax_extension"),
    "notation": (
        'local notation "⊥⊥" => True\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm',
        "syntax_extension",
    ),
    "infix": ('infix:50 " ≈≈ " => Eq\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm', "syntax_extension"),
    "local instance": (
        "local instance : Add ℕ := ⟨Nat.mul⟩\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm",
        "local_instance",
    ),
    "attribute instance": (
        "attribute [local instance] foo\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm",
        "local_instance",
    ),
    "import": ("import Mathlib.Tactic.Cheat\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm", "import"),
    "#exit": ("by\n  simp\n#exit", "exit"),
    "native_decide": ("by native_decide", "native_decide"),
    "Lean.ofReduceBool": ("Lean.ofReduceBool _ _ rfl", "native_decide"),
    "decide +native": ("by decide +native", "native_decide"),
    "native := true": ("by decide (config := {native := true})", "native_decide"),
    "variable": (
        "variable (cheat : False)\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := cheat.elim",
        "context_change",
    ),
    "changed conclusion": ("theorem t1 (a b : ℕ) (h : a = b) : a = a := rfl", "statement_drift"),
    "changed hypothesis": ("theorem t1 (a b : ℕ) (h : a = b) (h2 : False) : b = a := h2.elim", "statement_drift"),
    "changed binder": ("theorem t1 {a b : ℕ} (h : a = b) : b = a := h.symm", "statement_drift"),
    "other theorem": ("theorem easy : True := trivial", "statement_drift"),
    "stated twice": (
        "namespace X\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm\nend X\n"
        "theorem t1 (a b : ℕ) (h : a = b) : b = a := X.t1 a b h",
        "statement_drift",
    ),
    "namespace left open": ("namespace X\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := h.symm", "scope"),
    # Issue 21: names Lean reads as one identifier (`!`/`?` are identifier letters), `stop` (= `repeat sorry`).
    "sorry!": ("by exact sorry!rfl", "sorry"),
    "sorry?": ("by exact sorry?", "sorry"),
    "admit!": ("by admit!", "sorry"),
    "stop": ("by\n  stop\n  exact h.symm", "sorry"),
    "admitGoal": ("by exact Lean.Elab.admitGoal", "sorry"),
    # Issue 21: attributes that register meta code (a command elaborator could add declarations unchecked).
    "@[tactic]": (
        # (written after `open Lean Elab Tactic in`, the `open` is refused first: rule `meta_api`, round 7)
        "@[tactic Lean.Parser.Tactic.decide] def myDecide : Tactic := fun _ => do\n"
        "  (← getMainGoal).assign default\n\n" + THEOREM + "by decide",
        "elab_attribute",
    ),
    "@[command_elab]": (
        "@[command_elab Lean.Parser.Command.check] def forge : CommandElab := fun _ => do\n"
        "  modifyEnv id\n\n" + THEOREM + "h.symm",
        "elab_attribute",
    ),
    "@[term_elab]": (
        "@[term_elab Lean.Parser.Term.sorry] def f : TermElab := fun _ _ => default\n\n" + THEOREM + "h.symm",
        "elab_attribute",
    ),
    "@[macro]": (
        "@[macro Lean.Parser.Tactic.decide] def m : Macro := fun _ => default\n\n" + THEOREM + "h.symm",
        "elab_attribute",
    ),
    "@[delab]": ("@[delab app.Eq] def d : Delab := default\n\n" + THEOREM + "h.symm", "elab_attribute"),
    "@[term_parser]": ("@[term_parser] def p : Parser := default\n\n" + THEOREM + "h.symm", "elab_attribute"),
    "@[local command_elab] after a harmless one": (
        "@[simp, local command_elab Lean.Parser.Command.check] def forge : CommandElab := default\n\n"
        + THEOREM
        + "h.symm",
        "elab_attribute",
    ),
    "attribute [command_elab]": (
        "def forge : CommandElab := default\nattribute [command_elab Lean.Parser.Command.check] forge\n\n"
        + THEOREM
        + "h.symm",
        "elab_attribute",
    ),
    "@[builtin_tactic]": (
        "@[builtin_tactic decide] def t : Tactic := default\n\n" + THEOREM + "h.symm",
        "builtin_attribute",
    ),
    "@[builtin_command_elab]": (
        "@[builtin_command_elab check] def t : CommandElab := default\n\n" + THEOREM + "h.symm",
        "builtin_attribute",
    ),
    "@[init]": ("@[init] def hack : IO Unit := pure ()\n" + THEOREM + "h.symm", "init_attribute"),
    "@[builtin_init]": ("@[builtin_init] def hack : IO Unit := pure ()\n" + THEOREM + "h.symm", "init_attribute"),
    "attribute [init]": (
        "def hack : Unit := ()\nattribute [init] hack\n" + THEOREM + "h.symm",  # (an `IO` type: `meta_api`)
        "init_attribute",
    ),
    "@[norm_num]": ("@[norm_num _ + _] def e : NormNumExt := default\n\n" + THEOREM + "h.symm", "extension_attribute"),
    "@[positivity]": (
        "@[positivity _ + _] def e : PositivityExt := default\n\n" + THEOREM + "h.symm",
        "extension_attribute",
    ),
    "@[simproc]": ("def s : Simproc := default\nattribute [simproc] s\n\n" + THEOREM + "h.symm", "extension_attribute"),
    "@[aesop tactic]": (
        "@[aesop safe tactic] def t : TacticM Unit := default\n\n" + THEOREM + "by aesop",
        "extension_attribute",
    ),
    "unknown attribute": ("@[my_new_attr] theorem l : True := trivial\n\n" + THEOREM + "h.symm", "unknown_attribute"),
    "initialize": ("initialize pure ()\n\n" + THEOREM + "h.symm", "initialize"),
    "builtin_initialize": ("builtin_initialize pure ()\n\n" + THEOREM + "h.symm", "initialize"),
    "register_option": ("register_option foo : Bool := { defValue := true }\n\n" + THEOREM + "h.symm", "initialize"),
}


@pytest.mark.parametrize("name", list(EXPLOITS))
def test_each_exploit_class_is_rejected_with_its_rule(name):
    completion, rule = EXPLOITS[name]
    verdict = NONE.verify(TASK, f"```lean4\n{completion}\n```")
    assert verdict.reward == 0.0 and not verdict.passed
    assert verdict.details["layer"] == "static" and verdict.details["rule"] == rule, verdict.details
    assert rule in RULES
    expected = Reason.WRONG if rule == "sorry" else Reason.SANDBOX_VIOLATION
    assert verdict.reason is expected


@pytest.mark.parametrize(
    "completion",
    [
        "by\n  -- sorry, admit, native_decide are only words here\n  exact h.symm",
        "by\n  /- sorry /- nested -/ axiom -/\n  exact h.symm",
        'by\n  have s : String := "sorry #eval run_cmd"\n  exact h.symm',
        "by\n  have c : Char := '\"'\n  exact h.symm",
        "by\n  cases' h\n  rfl",
        "by\n  set_option maxHeartbeats 400000 in\n  exact h.symm",
        "lemma helper (x y : ℕ) (h : x = y) : y = x := h.symm\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := helper a b h",
        "theorem t1 (a b : ℕ) (h : a = b) :\n    b = a := by\n  exact h.symm",
        "lemma t1 (a b : ℕ) (h : a = b) : b = a := by exact h.symm",
        "exact h.symm",
        ":= by exact h.symm",
        "namespace X\nlemma l (x y : ℕ) (h : x = y) : y = x := h.symm\nend X\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := X.l a b h",
        # Attributes that only tag proved theorems or tune the compiler (issue 21 keeps them).
        "@[simp] lemma helper (x y : ℕ) (h : x = y) : y = x := h.symm\n\n" + THEOREM + "helper a b h",
        "@[simp, norm_cast] lemma helper (x y : ℕ) (h : x = y) : y = x := h.symm\n\n" + THEOREM + "helper a b h",
        "@[aesop safe apply (rule_sets := [Foo])] lemma helper (x y : ℕ) (h : x = y) : y = x := h.symm\n\n"
        + THEOREM
        + "helper a b h",
        "@[reducible, inline] def two : ℕ := 2\n\n" + THEOREM + "h.symm",
        "attribute [local simp] Nat.add_comm in\n" + THEOREM + "by simp [h]",
        "attribute [-simp] Nat.add_comm\n\n" + THEOREM + "h.symm",
        "by\n  have «stop» : True := trivial\n  exact h.symm",
        "by\n  have stop_here : True := trivial\n  have sorry_free : True := trivial\n  exact h.symm",
        'by\n  have : "sorry!".length = 6 := rfl\n  exact h.symm',
    ],
)
def test_harmless_text_is_not_rejected(completion):
    result = static_check(TASK, completion, LeanPolicy())
    assert isinstance(result, Prepared), result


def test_code_hidden_in_an_interpolated_string_is_seen():
    verdict = NONE.verify(TASK, 'by\n  have s := s!"{ "}" ++ toString sorry}"\n  exact h.symm')
    assert verdict.details["rule"] == "sorry"


def test_unreadable_lean_is_a_format_error():
    verdict = NONE.verify(TASK, "by\n  /- never closed\n  exact h.symm")
    assert verdict.reason is Reason.FORMAT_ERROR and verdict.reward == 0.0
    with pytest.raises(LexError):
        tokenize('"never closed')


def test_what_the_task_header_contains_is_allowed():
    header = "import Mathlib\nopen Real\nlocal macro_rules | `($x ^ $y) => `(HPow.hPow $x $y)\n\n"
    task = Task(id="h", prompt="p", answer={"header": header, "statement": "theorem h1 (x : ℝ) : x ^ 2 ≥ 0 :="})
    echoed = header + "theorem h1 (x : ℝ) : x ^ 2 ≥ 0 := by positivity"
    assert isinstance(static_check(task, echoed, LeanPolicy()), Prepared)
    added = "local macro_rules | `(tactic| positivity) => `(tactic| sorry)\n\ntheorem h1 (x : ℝ) : x ^ 2 ≥ 0 := by positivity"
    assert NONE.verify(task, added).details["rule"] == "syntax_extension"


def test_allowlists_loosen_one_rule_each():
    assert isinstance(static_check(TASK, "by native_decide", LeanPolicy(allow_native_decide=True)), Prepared)
    native_task = TASK.model_copy(update={"answer": {**TASK.answer, "allow_native_decide": True}})
    assert isinstance(static_check(native_task, "by native_decide", LeanPolicy()), Prepared)
    assert isinstance(
        static_check(TASK, "by\n  #eval 1\n  exact h.symm", LeanPolicy(allow_rules={"meta_code"})), Prepared
    )
    assert static_check(TASK, "by sorry", LeanPolicy(allow_native_decide=True)).details["rule"] == "sorry"
    with pytest.raises(ValueError, match="unknown policy rules"):
        LeanPolicy(allow_rules={"everything"})
    forbidden = static_check(TASK, "by omega", LeanPolicy(extra_forbidden={"omega"}))
    assert forbidden.details["rule"] == "forbidden"


def test_unknown_attributes_can_be_allowed_but_meta_code_attributes_stay_separate():
    unknown = "@[my_new_attr] theorem l : True := trivial\n\n" + THEOREM + "h.symm"
    assert isinstance(static_check(TASK, unknown, LeanPolicy(allow_rules={"unknown_attribute"})), Prepared)
    elab = "@[command_elab Lean.Parser.Command.check] def f : CommandElab := default\n\n" + THEOREM + "h.symm"
    assert static_check(TASK, elab, LeanPolicy(allow_rules={"unknown_attribute"})).details["rule"] == "elab_attribute"


def test_stop_in_a_reference_fill_is_rejected():
    reference = "import Mathlib\n\ntheorem r (a b : ℕ) (h : a = b) : b = a := sorry\n"
    task = Task(id="r", prompt="p", answer={"reference": reference})
    forged = "import Mathlib\n\ntheorem r (a b : ℕ) (h : a = b) : b = a := by\n  stop\n  exact h.symm\n"
    assert NONE.verify(task, forged).details["rule"] == "sorry"


def test_helpers_can_be_switched_off():
    completion = "lemma helper (x y : ℕ) (h : x = y) : y = x := h.symm\n\ntheorem t1 (a b : ℕ) (h : a = b) : b = a := helper a b h"
    verdict = static_check(TASK, completion, LeanPolicy(allow_helpers=False))
    assert verdict.details["rule"] == "helpers"


def test_drift_names_the_first_difference():
    verdict = NONE.verify(TASK, "theorem t1 (a b : ℕ) (h : a = b) : b = b := rfl")
    assert verdict.details["rule"] == "statement_drift"
    assert "expected `a`, found `b`" in verdict.details["message"]


def test_example_statements_get_an_audit_name():
    task = Task(id="e", prompt="p", answer={"header": "", "statement": "example (P : Prop) (hp : P) : P :="})
    prepared = static_check(task, "by exact hp", LeanPolicy())
    assert prepared.audit_names[0].startswith("_rlvr_example_")
    assert prepared.code.startswith(f"theorem {prepared.audit_names[0]} (P : Prop)")


def test_tactic_statements_accept_a_bare_tactic_block():
    stmt = parse_statement(HEADER, STATEMENT)
    prepared = prepare_statement(stmt, "exact h.symm", LeanPolicy())
    assert prepared.code.endswith(":= by\n  exact h.symm\n")


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        ("```lean\nfirst\n```\ntext\n```lean4\nsecond\n```", "second\n"),
        ("<think>```lean4\nsorry\n```</think>\n```lean4\nby simp\n```", "by simp\n"),
        ("<think>never finished ```lean4\nby simp\n```", None),
        ("```python\nx\n```", "```python\nx\n```"),
        ("   \n", None),
        ("```lean4\nby simp", "by simp"),
    ],
)
def test_extraction(completion, expected):
    assert extract_lean(completion) == expected


def test_hostile_completions_never_raise():
    for completion in [
        "\x00" * 100,
        "/-" * 5000,
        "«" * 1000,
        '"' * 999,
        "`" * 500,
        "theorem " * 2000,
        "(" * 10000,
        "ℝ" * 5000,
    ]:
        verdict = NONE.verify(TASK, completion)
        assert verdict.reward == 0.0 and not verdict.passed
    assert NONE.verify(TASK, None).reason is Reason.FORMAT_ERROR

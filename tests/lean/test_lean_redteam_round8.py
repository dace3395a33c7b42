"""Issue 26, round 8: the Lean red team as a policy under RL, on layer 1, on the verdict's reading of
Lean's output, and on the real Lean 4.35 test kernel with layer 1 switched off.

Holes found and mended by mechanism (ids stay ``-v2``'s successor ``-v3``):

- **tactic configuration**: options that ask for native evaluation were refused by spelling
  (``native :=``, ``+native``); a config built any other way passed layer 1 (an anonymous
  constructor, ``.mk``, a constant the completion defined, ``{ c with }``, ``by exact``, ``let``).
  Now a configuration value is a literal ``{ field := literal }`` over an allow-list of fields,
  named options and ``+flags`` after a tactic word are on the same allow-list
  (``rlvr_lean.options``), and ``set_option`` takes only allow-listed options (``compiler.*``,
  ``interpreter.*``, ``bootstrap.*`` and unknown options were accepted);
- **compiled-code trust by other names**: ``bv_decide``/``bv_check`` and ``ofReduceNat`` (the audit
  caught their axiom; layer 1 did not), ``extern``/``implemented_by`` outside an attribute list,
  unsafe constants by name (``unsafeCast``, ``unsafeBaseIO``, ``ptrAddrUnsafe``);
- **the verdict's channel**: the audit's ``#print axioms`` answers were matched by name and line
  only, so a program that printed well-formed JSON message lines (``IO`` is refused by layer 1:
  this is the second line) and stopped Lean could forge a clean audit. Now the check theorem's
  name carries a nonce keyed by a per-process secret, the file backend sends the file on a pipe
  (nothing on disk to read the nonce back from), the check theorem's line must hold exactly one
  answer, about exactly that name (trace messages beside it are not answers).
"""

from __future__ import annotations

import json

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean import backends
from rlvr_lean.backends import assemble_file, audit_nonce, audit_plan, judge_audit
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.protocol import Message, Pos
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import static_check
from tests.lean.test_lean_redteam_round5 import TASK, T, assert_passes, assert_refused
from tests.lean.test_lean_redteam_round6 import LEAN, PRELUDE, kernel
from tests.lean.test_lean_redteam_round7 import CHEAT, K_SIG, _raw

D = "by decide (config := {})"  # the honest shape each config probe bends

# (completion, rule): each passed layer 1 before round 8.
REFUSED = {
    # a native decide config built without the word `native`
    "anonymous constructor": (T + "by decide (config := ⟨false, true, true, false⟩)", "tactic_config"),
    "a constant the completion defined": (
        "def cfg := DecideConfig.mk false true true false\n" + T + "by decide (config := cfg)",
        "tactic_config",
    ),
    "dot constructor": (T + "by decide (config := .mk false true true false)", "tactic_config"),
    "by exact": (T + "by decide (config := by exact ⟨false, true, true, false⟩)", "tactic_config"),
    "with update": (
        "def cfg : DecideConfig := {}\n" + T + "by decide (config := { cfg with kernel := false })",
        "tactic_config",
    ),
    "let": (T + "by decide (config := let c := ⟨false, true, true, false⟩; c)", "tactic_config"),
    "parenthesised": (T + "by decide (config := (⟨false, true, true, false⟩))", "tactic_config"),
    "anonymous inside a literal": (
        T + "by decide (config := { (⟨false, true, true, false⟩ : _) with })",
        "tactic_config",
    ),
    "field value a constant": ("def t := true\n" + T + "by simp (config := { decide := t }) [h]", "tactic_config"),
    "field value a call": (T + "by simp (config := { maxSteps := Nat.succ 5 }) [h]", "tactic_config"),
    "unknown field": (T + "by simp (config := { zetaa := true }) [h]", "tactic_config"),
    "simp_config by constructor": (T + "by aesop (simp_config := ⟨⟩)", "tactic_config"),
    "config in term mode": (T + "(by decide (config := ⟨false, true, true, false⟩) : True) ▸ h.symm", "tactic_config"),
    "config on the next line": (T + "by\n  decide\n    (config := ⟨false, true, true, false⟩)", "tactic_config"),
    "after try": (T + "by try decide (config := ⟨false, true, true, false⟩)", "tactic_config"),
    "an unknown +flag": (T + "by decide +nativ", "tactic_config"),
    "an unknown +flag after an allowed one": (T + "by simp +arith +evalNative [h]", "tactic_config"),
    "an unknown named option": (T + "by decide (evalNative := true)", "tactic_config"),
    "a named option after a +flag": (T + "by decide +kernel (evalNative := true)", "tactic_config"),
    "a named option in a focus block": (T + "by\n  · decide (compile := true)", "tactic_config"),
    # options outside the allow-list
    "compiler option": ("set_option compiler.extract_closed false in\n" + T + "h.symm", "unsafe_option"),
    "interpreter option": ("set_option interpreter.prefer_native true in\n" + T + "h.symm", "unsafe_option"),
    "bootstrap option": ("set_option bootstrap.genMatcherCode false in\n" + T + "h.symm", "unsafe_option"),
    "an unknown option in a tactic block": (
        T + "by\n  set_option trustNative true in\n  exact h.symm",
        "unsafe_option",
    ),
    "escaped option": ("set_option «compiler».enableNew true\n" + T + "h.symm", "unsafe_option"),
    # trust in compiled code by other names
    "bv_decide": (T + "by bv_decide", "native_decide"),
    "bv_check": (T + 'by bv_check "p.lrat"', "native_decide"),
    "ofReduceNat under an opened Lean": (T + "by exact ofReduceNat _ _ rfl", "native_decide"),
    "extern outside an attribute": (T + "by exact (extern h).symm", "extern"),
    "implemented_by as a term": ("def foo := implemented_by\n" + T + "h.symm", "implemented_by"),
    "unsafeCast": (T + "unsafeCast h", "unsafe"),
    "unsafeBaseIO": ("def f := unsafeBaseIO (pure ())\n" + T + "h.symm", "unsafe"),
    "ptrAddrUnsafe": (T + "by exact (ptrAddrUnsafe h).elim", "unsafe"),
    # sorry spellings and redefinitions, rows that held (regression): each is refused by its rule
    "sorryAx by its full name": (T + "_root_.sorryAx _ false", "sorry"),
    "admit after a semicolon": (T + "by skip; admit", "sorry"),
    "escaped sorry in a have": (T + "by\n  have : False := «sorry»\n  exact this.elim", "sorry"),
    "a tactic macro expanding to sorry": (
        'local macro "done!" : tactic => `(tactic| sorry)\n' + T + "by done!",
        "syntax_extension",
    ),
    "macro_rules redefining rfl": (
        "macro_rules | `(tactic| rfl) => `(tactic| exact h.symm)\n" + T + "by rfl",
        "syntax_extension",
    ),
    "local notation": ('local notation "bb" => a\n' + T + "h.symm", "syntax_extension"),
    "elab redefining decide": ('elab "decide" : tactic => pure ()\n' + T + "by decide", "meta_code"),
    "opaque helper by sorry": ("opaque c : Nat := sorry\n" + T + "h.symm", "sorry"),
    "partial def used": (
        "partial def loop (n : ℕ) : ℕ := loop n\n" + T + "by\n  have := loop 0\n  exact h.symm",
        "partial",
    ),
    "export of a look-alike": (
        "namespace X\ntheorem t1 : True := trivial\nend X\nexport X (t1)\n" + T + "h.symm",
        "export",
    ),
    "an axiom in a namespace": ("namespace X\naxiom c : False\nend X\n" + T + "X.c.elim", "axiom"),
    "end closing the checked scope": (T + "h.symm\nend\nsection", "scope"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_layer_one_refuses_each_probe(name):
    assert_refused(*REFUSED[name])


HONEST = [
    T + "by simp (config := {decide := true}) [h]",
    T + "by simp_rw (config := {decide := true}) [h]",
    T + "by simp (config := { maxSteps := 100000, contextual := true }) [h]",
    T + "by simp (config := {\n    decide := true\n    arith := false }) [h]",
    T + "by simp (config := { transparency := .reducible }) [h]",
    T + D.removeprefix("by "),
    T + "by decide +kernel",
    T + "by simp +arith +decide [h]",
    T + "by omega",
    T + "by rw (occs := .pos [1]) [h]",
    T + "by nlinarith [sq_nonneg (a +b), sq_nonneg (a - b), abs_nonneg |a +b|]",  # sums written oddly, not flags
    T + "by\n  have := Nat.le_of_lt_succ (m := 2) (by omega : 2 < 3)\n  exact h.symm",  # named arguments
    T + "by\n  exact Eq.symm (a := a) h",
    T + "by\n  use -a\n  exact h.symm",
    "instance (priority := 100) inst : Inhabited ℕ := ⟨0⟩\n" + T + "h.symm",
    "set_option maxHeartbeats 400000 in\n" + T + "h.symm",
    "set_option linter.unusedVariables false in\n" + T + "h.symm",
    "set_option pp.all true in\n" + T + "h.symm",
    T + "by\n  set_option maxRecDepth 1000 in\n  exact h.symm",
    "lemma extern_free (x : ℕ) : x = x := rfl\n" + T + "h.symm",  # `extern` inside a longer name
]


@pytest.mark.parametrize("code", HONEST, ids=range(len(HONEST)))
def test_honest_configurations_and_options_pass(code):
    assert_passes(code)


def test_native_configurations_pass_where_the_task_allows_native():
    task = Task(id="n", prompt="p", answer={**TASK.answer, "allow_native_decide": True})
    for code in (T + "by decide +native", T + "by decide (config := { native := true })", T + "by bv_decide"):
        assert isinstance(static_check(task, code, LeanPolicy()), Prepared), code
    # native allowed widens the list by `native` alone
    assert_refused(T + "by decide (config := { native := true, evalNative := true })", "tactic_config", task)


def test_an_option_the_task_itself_sets_may_be_echoed():
    header = "import Mathlib\nset_option exotic.option true\n"
    task = Task(id="o", prompt="p", answer={"header": header, "statement": TASK.answer["statement"]})
    assert_passes(header + T + "h.symm", task)
    assert_passes("set_option exotic.option true in\n" + T + "h.symm", task)


# --- the verdict's channel: answers the checked code could print -------------------------------


def _prepared() -> Prepared:
    return Prepared(
        header="",
        code="theorem foo : True := trivial",
        audit_names=("foo",),
        ref_declaration="theorem _root_._rlvr_ref_abc : True := sorry",
        ref_name="_rlvr_ref_abc",
        extracted="theorem foo : True := trivial",
    )


def _answer(line: int, name: str, axioms: str = "") -> Message:
    data = f"'{name}' depends on axioms: [{axioms}]" if axioms else f"'{name}' does not depend on any axioms"
    return Message("information", Pos(line, 0), None, data)


def test_the_nonce_is_secret_per_process_and_stable_for_one_proof(monkeypatch):
    p = _prepared()
    first = audit_nonce(p)
    assert first == audit_nonce(p) and len(first) >= 16
    assert audit_nonce(Prepared(**{**p.__dict__, "code": p.code + " "})) != first
    monkeypatch.setattr(backends, "_SECRET", [])  # another process: another key
    assert audit_nonce(p) != first


def test_forged_answers_never_make_a_verdict():
    nonce = audit_nonce(_prepared())
    plan = audit_plan(_prepared(), nonce)
    check = f"_rlvr_check_abc_{nonce}"
    assert plan.check_name == check and f"#print axioms _root_.{check}" in plan.text
    real = (_answer(2, check), _answer(3, "foo"))
    assert judge_audit(plan, real, allow_native=False) is None
    # a trace option left on (`trace.Elab.command`, `profiler`) adds messages on the audit's lines and past them
    trace = Message("information", Pos(2, 0), None, f"[Elab.command] #print axioms {check}")
    late = Message("information", Pos(4, 0), None, "elaboration took 0.2ms")
    assert judge_audit(plan, (*real, trace, late), allow_native=False) is None
    forged = {
        # what a forger knows: the statement's fingerprint, not the nonce
        "the check theorem without the nonce": (_answer(2, "_rlvr_check_abc"), _answer(3, "foo")),
        "a second answer on the check line": (_answer(2, check, "cheat"), _answer(2, check), _answer(3, "foo")),
        "the answer twice": (_answer(2, check), _answer(2, check), _answer(3, "foo")),
        "another constant's answer on the check line": (_answer(2, "foo"), _answer(3, "foo")),
    }
    for name, messages in forged.items():
        verdict = judge_audit(plan, messages, allow_native=False)
        assert verdict is not None and verdict.reward == 0.0, name
        assert verdict.reason is not Reason.VERIFIER_ERROR, (name, verdict)


@kernel
@pytest.mark.lean
def test_the_file_backend_reads_no_file_and_refuses_printed_lines(monkeypatch):
    # A program that printed well-formed `lean --json` lines for the audit and exited 0: what it
    # can know is the file's shape and the statement's fingerprint, not the nonce.
    from rlvr_lean import file_backend
    from rlvr_lean.file_backend import FileBackend, FileRun

    task = Task(id="f8", prompt="p", answer={"header": PRELUDE, "statement": "theorem target (n : N) : Eq n n :="})
    prepared = static_check(task, "rfl", LeanPolicy())
    assert isinstance(prepared, Prepared)
    backend = FileBackend(LEAN)
    argv = backend._argv("/tmp")
    assert "--stdin" in argv and not any(a.endswith(".lean") for a in argv)
    honest = backend.check(prepared, allow_native=False, timeout_s=30)
    assert honest.passed, honest
    _text, (_first, _last), offset, plan = assemble_file(prepared)  # the nonce-free names a forger can build
    lines = [
        json.dumps({"severity": "information", "pos": {"line": offset + k, "column": 0}, "data": data})
        for k, data in (
            (2, f"'{plan.check_name}' does not depend on any axioms"),
            (3, "'target' does not depend on any axioms"),
        )
    ]
    forged = FileRun("\n".join(lines) + "\n", "", 0, 0.1, False)
    monkeypatch.setattr(file_backend.FileBackend, "run_file", lambda self, text, timeout_s, **_: forged)
    verdict = backend.check(prepared, allow_native=False, timeout_s=30)
    assert not verdict.passed and verdict.reward == 0.0, verdict


# --- the shipped attacker on the family's own data ----------------------------------------------


@pytest.mark.parametrize("env_id", ["lean-minif2f-v9", "lean-workbook-v9", "lean-v9"])
def test_the_shipped_attacker_finds_lean_statements_and_no_hole(env_id):
    import rlvr_envs
    from rlvr_envs.redteam.runner import run_redteam
    from tests.helpers.data import shared_path

    if env_id == "lean-minif2f-v9":
        env = rlvr_envs.make(env_id, data=str(shared_path("minif2f_statements.jsonl")))
    else:  # miniF2F's statements end in `:= by`, the shared cases' in `:=`
        extra = {"statement_key": "statement"} if env_id == "lean-workbook-v9" else {}
        env = rlvr_envs.make(env_id, data=str(shared_path("lean_cases.jsonl")), **extra)
    report = run_redteam(env, n=3, classes=["lean_wrapper"])
    result = report.result("lean_wrapper")
    assert result.status == "ok" and result.tasks == 3, result  # applicable: the statement was read
    assert report.holes == 0


def test_the_workbook_names_the_statement_option_it_takes():
    import rlvr_envs
    from rlvr_envs.errors import DataError
    from tests.helpers.data import shared_path

    with pytest.raises(DataError, match="statement_key='statement'"):
        rlvr_envs.make("lean-workbook-v9", data=str(shared_path("lean_cases.jsonl")))


# --- on the real kernel (Lean 4.35 test kernel), layer 1 off ----------------------------------

KERNEL_HOSTILE = {
    "the theorem proved in a namespace by the stand-in, exported to the root": (
        "axiom cheat : False\nnamespace X\n" + CHEAT.split("\n", 1)[1] + "end X\nexport X (target)\n"
    ),
    "the stand-in renamed to an allowed axiom's name": (
        "namespace X\naxiom cheat : False\nend X\nopen X renaming cheat → propext\n"
        f"{K_SIG} := False.rec (fun _ => _) propext\n"
    ),
    "a forged answer printed as a message of the code": (
        CHEAT + "#print \"'_rlvr_check_x' does not depend on any axioms\"\n"
        "#print \"'target' does not depend on any axioms\"\n"
    ),
    "a section around the stand-in": "section\n" + CHEAT + "end\n",
    "an end closing a scope the code never opened": CHEAT + "end\n",
    "the stand-in under a private name, the real one missing": "axiom cheat : False\nprivate "
    + CHEAT.split("\n", 1)[1],
}


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_lean_and_the_audit_hold_round_eight_scope_tricks_without_layer_one():
    from rlvr_lean.file_backend import FileBackend

    backend = FileBackend(LEAN)
    for options in (
        "",
        "set_option trace.Elab.command true\n",
        "set_option profiler true\nset_option profiler.threshold 0\n",
    ):
        # options on the allow-list that make Lean itself add messages on the audit's lines and past them
        honest = backend.check(_raw(f"{options}{K_SIG} := N.zero_add n\n"), allow_native=False, timeout_s=30)
        assert honest.passed, (options, honest)
    for name, code in KERNEL_HOSTILE.items():
        verdict = backend.check(_raw(code), allow_native=False, timeout_s=30)
        assert verdict.reward == 0.0 and verdict.reason is not Reason.VERIFIER_ERROR, (name, verdict)

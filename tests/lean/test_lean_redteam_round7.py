"""Issue 26, round 7: the Lean red team as a policy under RL, on the layer-1 rules and on the real
Lean 4.35 test kernel with layer 1 switched off (what Lean and the kernel audit hold alone).

Holes found and mended by mechanism (ids -> ``-v2``):

- **meta code run through aesop**: a completion could define a ``TacticM`` program (meta code can
  add a declaration the kernel never checks, ``addDeclWithoutChecking``) and have it run by
  ``add_aesop_rules safe tactic forge`` or ``aesop (add safe tactic forge)``, neither an attribute
  nor a denied command. Now the completion may not name the meta-programming API at all (rule
  ``meta_api``: ``Lean.*``/``open Lean``, ``Aesop.*``, ``Qq``, the elaborator monads,
  ``Mathlib.Tactic.*``: meta code cannot be written without them) and an aesop ``tactic`` builder
  outside an attribute is refused (``aesop_tactic_rule``), as ``@[aesop … tactic]`` already was;
- **suffixed commands**: Lean's names may end in ``?``/``!`` and libraries define such variants of
  commands (Mathlib's ``variable?``); a denied keyword so suffixed is the keyword;
- **output floods**: messages past the file backend's cut took the bogus proof's errors and the
  audit's answers with them, and the verdict was ``verifier_error`` (an infrastructure failure,
  which stops a trainer's batch); it is now ``runtime_error``, rule ``output``;
- the test kernel's prelude lacked ``Classical.choice`` and ``Quot.sound``, so with layer 1 off a
  completion could declare an allowed axiom's name there (Init declares both on a toolchain, where
  that is "already declared"): the fixture now declares them as Init does.

Every other class tried held and stays as regression rows (kernel: ``pp.*``/``format.*``/trace
options, universe specialisation, ``private`` theorems and axioms, escaped axiom names, ``sorryAx``
written out, Cyrillic look-alike names, instance priority hijacks, ``bootstrap.*`` options).
"""

from __future__ import annotations

import sys
import time

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import static_check
from tests.lean.test_lean_redteam_round5 import TASK, T, assert_passes, assert_refused
from tests.lean.test_lean_redteam_round6 import LEAN, PRELUDE, kernel

FORGE = "def forge : TacticM Unit := do\n  pure ()\n"

# (completion, rule): each passed layer 1 before round 7.
REFUSED = {
    # meta code defined, then run by aesop
    "open Lean, a TacticM program, an aesop tactic rule": (
        "open Lean Elab Tactic in\n" + FORGE + "add_aesop_rules safe tactic forge\n" + T + "by aesop",
        "meta_api",
    ),
    "the program by its full name": (
        "def forge : Lean.Elab.Tactic.TacticM Unit := pure ()\n" + T + "by aesop (add safe tactic forge)",
        "meta_api",
    ),
    "the monad under a header's `open Lean`": (FORGE + T + "by aesop (add safe forge)", "meta_api"),
    "unchecked declarations named": (
        "def f := Lean.Environment.addDeclWithoutChecking\n" + T + "h.symm",
        "meta_api",
    ),
    "from the root": ("def f := _root_.Lean.addDecl\n" + T + "h.symm", "meta_api"),
    "Elab.Command under an opened Lean": (
        "def f : Elab.Command.CommandElabM Unit := pure ()\n" + T + "h.symm",
        "meta_api",
    ),
    "an aesop rule type": ("def r : Aesop.RuleTac := fun _ => default\n" + T + "h.symm", "meta_api"),
    "Qq": ("open Qq in\n" + T + "h.symm", "meta_api"),
    "Mathlib's meta namespace": ("open Mathlib.Tactic in\n" + T + "h.symm", "meta_api"),
    "a monad alias": ("abbrev M := MetaM\n" + T + "h.symm", "meta_api"),
    "a native decide config by constructor": (
        "def cfg : Lean.Parser.Tactic.DecideConfig := ⟨false, true, true, false⟩\n" + T + "by decide (config := cfg)",
        "meta_api",
    ),
    # IO in a closure a tactic's config runs while the proof elaborates: a forged answer, then exit
    "IO in a closure outside a config": (
        T + 'by\n  have := fun (_ : Unit) => IO.println "x"\n  exact h.symm',
        "meta_api",
    ),
    "open IO": ("open IO in\n" + T + "h.symm", "meta_api"),
    "EIO": ("def f : EIO String Unit := pure ()\n" + T + "h.symm", "meta_api"),
    "BaseIO": ("def f : BaseIO Unit := pure ()\n" + T + "h.symm", "meta_api"),
    # aesop's tactic builder outside an attribute, whatever the program is called
    "add_aesop_rules … tactic": ("add_aesop_rules safe tactic forge\n" + T + "by aesop", "aesop_tactic_rule"),
    "local add_aesop_rules with rule sets": (
        "local add_aesop_rules norm tactic (rule_sets := [x]) forge\n" + T + "by aesop",
        "aesop_tactic_rule",
    ),
    "aesop (add … tactic …)": (T + "by aesop (add safe tactic forge)", "aesop_tactic_rule"),
    "add_aesop_rules over several lines": (
        "add_aesop_rules safe\n  tactic\n  (rule_sets := [x])\n  forge\n" + T + "by aesop",
        "aesop_tactic_rule",
    ),
    "aesop_cat (add … tactic …)": (T + "by aesop_cat (add safe tactic forge)", "aesop_tactic_rule"),
    "the clause nested after a harmless one": (
        T + "by aesop (add safe (by simp), safe tactic forge)",
        "aesop_tactic_rule",
    ),
    "aesop? after a config": (T + "by\n  aesop? (config := {}) (add norm 5 tactic forge)", "aesop_tactic_rule"),
    # library variants of denied commands
    "variable? (Mathlib)": ("variable? (h' : False)\n" + T + "h.symm", "context_change"),
    "variable!": ("variable! (h' : False)\n" + T + "h.symm", "context_change"),
    "include? after the proof": (T + "h.symm\ninclude? h", "context_change"),
    "axiom!": ("axiom! cheat : False\n" + T + "h.symm", "axiom"),
    "export?": ("export? Nat (add)\n" + T + "h.symm", "export"),
    "macro?": ('macro? "foo" : term => `(1)\n' + T + "h.symm", "syntax_extension"),
    "notation!": ('notation! "foo" => 1\n' + T + "h.symm", "syntax_extension"),
    "initialize?": ("initialize? pure ()\n" + T + "h.symm", "initialize"),
    "run_cmd!": ("run_cmd! pure ()\n" + T + "h.symm", "meta_code"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_layer_one_refuses_each_probe(name):
    assert_refused(*REFUSED[name])


def test_a_linarith_preprocessor_printing_a_forged_audit_answer_is_refused():
    # round 8: a config is a literal over allowed fields, read before the `IO` in it (`tactic_config`);
    # round 12: the printed JSON is a plain string whose `{` would open a code part that does not
    # close inside it (read as an interpolated string it ends elsewhere): refused before any rule
    code = (
        T + 'by linarith (config := { preprocessors := [{ name := "p", transform := fun _ l => do\n'
        '    IO.println "{\\"severity\\":\\"information\\"}"; IO.Process.exit 0 }] })'
    )
    verdict = static_check(TASK, f"```lean4\n{code}\n```", LeanPolicy())
    assert not isinstance(verdict, Prepared) and verdict.reason is Reason.FORMAT_ERROR, verdict
    braces_closed = code.replace('"{\\"severity\\":\\"information\\"}"', '"severity: information"')
    assert_refused(braces_closed, "tactic_config")


@pytest.mark.parametrize(
    "code",
    [
        T + "by aesop",
        T + "by aesop (add safe h)",  # a proof as a rule: no code of the completion's runs
        "add_aesop_rules safe (by simp)\n" + T + "by aesop",
        "set_option Elab.async false in\n" + T + "h.symm",  # an option's name is not a constant's
        "lemma isGood? : True := trivial\n" + T + "h.symm",  # `?` in a helper's own name
        "lemma meta_free (x : ℕ) : x = x := rfl\n" + T + "h.symm",
        T + "by exact?",
    ],
)
def test_honest_look_alikes_pass(code):
    assert_passes(code)


# --- on the real kernel (Lean 4.35 test kernel), layer 1 off ----------------------------------

K_SIG = "theorem target (n : N) : Eq (N.add N.zero n) n"
K_TASK = Task(id="k7", prompt="p", answer={"header": PRELUDE, "statement": K_SIG + " :="})
U_SIG = "theorem target.{w} (α : Sort w) (a b : α) (h : Eq a b) : Eq b a"
U_TASK = Task(id="k7u", prompt="p", answer={"header": PRELUDE, "statement": U_SIG + " :="})
I_HEADER = PRELUDE + "\ninstance instZeroN : OfNat N 0 := OfNat.mk N.zero\n"
I_SIG = "theorem target : Eq (0 : N) (N.succ N.zero)"  # false under the header's instance
I_TASK = Task(id="k7i", prompt="p", answer={"header": I_HEADER, "statement": I_SIG + " :="})
# `axiom cheat` stands in for any proof that proves nothing (layer 1 refuses the axiom itself).
CHEAT = f"axiom cheat : False\n{K_SIG} := False.rec (fun _ => _) cheat\n"


def _raw(code: str, task: Task = K_TASK) -> Prepared:
    body = "Eq.symm h" if task is U_TASK else ("rfl" if task is I_TASK else "N.zero_add n")
    base = static_check(task, body, LeanPolicy())
    assert isinstance(base, Prepared)
    return Prepared(base.header, code, base.audit_names, base.ref_declaration, base.ref_name, code)


OPTIONS = (
    "pp.oneline true",
    "pp.maxSteps 1",
    "pp.deepTerms false",
    "pp.fullNames true",
    "pp.raw true",
    "pp.all true",
    "pp.privateNames true",
    "format.width 5",
    "format.indent 0",
    "trace.Meta.isDefEq true",
    "Elab.async false",
    "warningAsError true",
    "maxRecDepth 5",
    "maxHeartbeats 1",
    "maxErrors 0",
)
HOSTILE: dict[str, tuple[str, Task]] = {
    **{f"set_option {o} at the top, then the stand-in": (f"set_option {o}\n{CHEAT}", K_TASK) for o in OPTIONS},
    "universe: the theorem proved at Sort 1 only": (
        "theorem target (α : Sort 1) (a b : α) (h : Eq a b) : Eq b a := Eq.symm h\n",
        U_TASK,
    ),
    "universe: shifted to Sort (w+1)": (
        "theorem target.{w} (α : Sort (w+1)) (a b : α) (h : Eq a b) : Eq b a := Eq.symm h\n",
        U_TASK,
    ),
    "private theorem by the stand-in": ("axiom cheat : False\nprivate " + CHEAT.split("\n", 1)[1], K_TASK),
    **{
        f"private axiom named {ax}": (f"private axiom {ax} : False\n{K_SIG} := False.rec (fun _ => _) {ax}\n", K_TASK)
        for ax in ("propext", "Quot.sound", "Classical.choice", "Lean.ofReduceBool")
    },
    **{
        f"axiom {ax}, one escaped component": (f"axiom {ax} : False\n{K_SIG} := False.rec (fun _ => _) {ax}\n", K_TASK)
        for ax in ("«Quot.sound»", "«Classical.choice»", "«propext,»", "«propext]»")
    },
    "sorryAx written out": (f"{K_SIG} := sorryAx _ Bool.false\n", K_TASK),
    "Cyrillic look-alike clean, the real one by the stand-in": (
        CHEAT + "theorem t\u0430rget (n : N) : Eq (N.add N.zero n) n := N.zero_add n\n",
        K_TASK,
    ),
    "only a Cyrillic look-alike": ("theorem t\u0430rget (n : N) : Eq (N.add N.zero n) n := N.zero_add n\n", K_TASK),
    "instance priority hijack makes the false statement true": (
        f"instance (priority := 2000) hijack : OfNat N 0 := OfNat.mk (N.succ N.zero)\n{I_SIG} := rfl\n",
        I_TASK,
    ),
    "bootstrap option and a too-large inductive": (
        "set_option bootstrap.inductiveCheckResultingUniverse false in\n"
        f"inductive Big : Sort 1 where\n  | mk (s : Sort 1) : Big\n{K_SIG} := N.zero_add n\n",
        K_TASK,
    ),
}
HONEST: dict[str, tuple[str, Task]] = {
    "the proof": (f"{K_SIG} := N.zero_add n\n", K_TASK),
    "a private theorem (a proof all the same)": (f"private {K_SIG} := N.zero_add n\n", K_TASK),
    "a def with the statement's type (a proof all the same)": (
        "def target (n : N) : Eq (N.add N.zero n) n := N.zero_add n\n",
        K_TASK,
    ),
    "the universe-polymorphic proof": (f"{U_SIG} := Eq.symm h\n", U_TASK),
}


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_lean_and_the_audit_hold_each_class_without_layer_one():
    from rlvr_lean.file_backend import FileBackend

    backend = FileBackend(LEAN)
    try:
        hostile = {
            name: backend.check(_raw(c, t), allow_native=False, timeout_s=30) for name, (c, t) in HOSTILE.items()
        }
        honest = {name: backend.check(_raw(c, t), allow_native=False, timeout_s=30) for name, (c, t) in HONEST.items()}
    finally:
        backend.close()
    for name, verdict in honest.items():
        assert verdict.passed, (name, verdict)
    for name, verdict in hostile.items():
        assert verdict.reward == 0.0 and verdict.reason is not Reason.VERIFIER_ERROR, (name, verdict)
    assert hostile["instance priority hijack makes the false statement true"].details["rule"] == "statement_mismatch"
    assert hostile["universe: the theorem proved at Sort 1 only"].details["rule"] == "statement_mismatch"
    assert hostile["sorryAx written out"].details["rule"] == "sorry"


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_the_prelude_declares_every_allowed_axiom_so_none_can_be_redeclared():
    from rlvr_lean.file_backend import FileBackend

    backend = FileBackend(LEAN)
    try:
        for ax in ("Quot.sound", "Classical.choice"):
            code = f"private axiom {ax} : False\n{K_SIG} := False.rec (fun _ => _) {ax}\n"
            verdict = backend.check(_raw(code), allow_native=False, timeout_s=30)
            assert verdict.reason is Reason.WRONG and "already been declared" in verdict.details["error"], verdict
    finally:
        backend.close()


@pytest.mark.lean
@pytest.mark.live
@kernel
@pytest.mark.parametrize("proof", ["rfl", "N.zero_add n"])
def test_a_flood_cut_before_the_proof_is_judged_is_the_completion_s_runtime_error(monkeypatch, proof):
    # A short completion can print megabytes (`#reduce`/`#print` of huge terms, traces): the cut
    # took the bogus proof's errors and the audit's answers, and the verdict was verifier_error.
    from rlvr_lean import file_backend

    monkeypatch.setattr(file_backend, "_STDOUT_LIMIT", 600)  # a few messages' worth
    code = "#check N.zero\n" * 12 + f"{K_SIG} := {proof}\n"
    verdict = file_backend.FileBackend(LEAN).check(_raw(code), allow_native=False, timeout_s=30)
    assert verdict.reason is Reason.RUNTIME_ERROR and verdict.details["rule"] == "output", verdict


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_one_message_past_the_cut_is_the_completion_s_runtime_error(monkeypatch):
    from rlvr_lean import file_backend

    monkeypatch.setattr(file_backend, "_STDOUT_LIMIT", 100)  # less than one whole message
    code = f"#check N.zero_add\n{K_SIG} := rfl\n"
    verdict = file_backend.FileBackend(LEAN).check(_raw(code), allow_native=False, timeout_s=30)
    assert verdict.reason is Reason.RUNTIME_ERROR and verdict.details["rule"] == "output", verdict


@pytest.mark.parametrize(
    "tail",
    ["add_aesop_rules " * 20_000, "by aesop " + "(add " * 20_000 + ")" * 20_000, "by aesop " + "(add x) " * 20_000],
)
def test_the_aesop_clause_scan_reads_each_token_once(tail):
    # past the default size cap (round 13): raised here, so that the scan itself is what is timed
    unbounded = LeanPolicy(max_code_chars=10**7)
    code = T + "h.symm\n" + tail if tail.startswith("add") else T + tail
    started = time.process_time()
    assert isinstance(static_check(TASK, f"```lean4\n{code}\n```", unbounded), Prepared), code[:200]
    assert time.process_time() - started < 10.0  # ~0.3-0.8 s linear here; the first cut took 23 s (quadratic)


def test_a_repl_response_past_the_limit_is_the_completion_s_runtime_error_and_the_next_check_runs(monkeypatch):
    # The REPL sends a command's messages in one response; a flood used to be held whole in this
    # process (and searched again from its start at every read: quadratic).
    from rlvr_lean import repl
    from rlvr_lean.repl import LocalBackend
    from tests.lean.test_lean_pool import STANDIN, prepared, raw

    monkeypatch.setattr(repl, "RESPONSE_LIMIT", 1 << 20)  # the stand-in's response is 4 MiB
    backend = LocalBackend(command=STANDIN, max_repls=1)
    try:
        started = time.monotonic()
        flood = backend.check(raw("STANDIN_FLOOD"), allow_native=False, timeout_s=30)
        assert time.monotonic() - started < 20  # cut at the limit, not at the 30 s budget
        after = backend.check(prepared(), allow_native=False, timeout_s=30)
    finally:
        backend.close()
    assert flood.reason is Reason.RUNTIME_ERROR and flood.details["rule"] == "output", flood
    assert after.passed, after


def test_a_long_repl_response_is_read_in_linear_time():
    from rlvr_lean.repl import ReplProcess

    proc = ReplProcess([sys.executable, "-c", "pass"], cwd=None)
    try:
        started = time.process_time()
        for _ in range(800):  # 50 MiB in 64 KiB reads with no separator, then one
            proc._buffer += b"x" * (1 << 16)
            assert proc._take() is None
        assert time.process_time() - started < 5.0  # ~0.1 s; searching from the start each time: ~20 s
    finally:
        proc.kill()


def test_names_the_task_itself_writes_may_be_repeated():
    # `meta_api` judges what the completion brings: a statement about `Lean.Name` may be restated.
    stmt = "theorem t (n : Lean.Name) : n = n :="
    task = Task(id="meta-stmt", prompt="p", answer={"header": "import Mathlib\n", "statement": stmt})
    assert_passes(stmt + " rfl", task)
    assert_passes("rfl", task)
    assert_refused(stmt + " by\n  have := Lean.addDecl\n  rfl", "meta_api", task)
    ref = "import Mathlib\n\ntheorem u (n : Lean.Name) : n = n := sorry\n"
    ref_task = Task(id="meta-ref", prompt="p", answer={"reference": ref})
    assert_passes(ref.replace("sorry", "rfl"), ref_task)
    assert_refused(ref.replace("sorry", "by\n  have := IO.println\n  rfl"), "meta_api", ref_task)

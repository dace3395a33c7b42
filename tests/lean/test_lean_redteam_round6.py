"""Issue 26, round 6: a proof that proves nothing, accepted by hiding Lean's errors and steering
the kernel audit's names.

The chain found (each link a hole of its own): ``#guard_msgs (drop all) in`` before the restated
theorem drops the errors of a bogus proof (Lean still adds the theorem, proved by ``sorryAx``);
the code then leaves a namespace open (or ``open``s one) holding look-alikes, so the audit
appended after it resolved ``_rlvr_ref_…`` / the theorem's name to the look-alikes, or
``#print axioms`` of an ambiguous name printed a clean look-alike first and only that answer was
read. Fixed by mechanism: ``#`` commands by an allowlist where a command may begin and wherever
one wraps the next command; scopes balanced over the whole completion by keyword; the audit's
names from the root, the axioms of the check theorem itself, every answer of a ``#print axioms``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean import test_kernel
from rlvr_lean.backends import audit_plan, judge_audit
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.protocol import Message, Pos
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import static_check
from tests.lean.test_lean_redteam_round5 import HEADER, STATEMENT, TASK, T, assert_passes, assert_refused

LOOKALIKES = "namespace Foo\ntheorem _rlvr_ref_x : True := trivial\ndef t1 : True := trivial\n"

# (completion, rule): each passed the static layer before round 6.
REFUSED = {
    # the whole chain, restated: errors dropped, then look-alikes left open for the audit
    "guard_msgs chain": (
        "lemma keep : True := trivial\n#guard_msgs (drop all) in\n" + T + "by omega\n" + LOOKALIKES,
        "hash_command",
    ),
    "guard_msgs, look-alikes opened": (
        "lemma keep : True := trivial\n#guard_msgs (drop all) in\n"
        + T
        + "by omega\nnamespace Foo\ndef t1 : True := trivial\nend Foo\nopen Foo",
        "hash_command",
    ),
    "guard_msgs without a spec": ("lemma keep : True := trivial\n#guard_msgs in\n" + T + "by omega", "hash_command"),
    "guard_msgs mid-line": (
        "lemma keep : True := trivial #guard_msgs (drop error) in\n" + T + "by omega",
        "hash_command",
    ),
    "guard_msgs after open in": ("open Nat in #guard_msgs (drop all) in\n" + T + "by omega", "hash_command"),
    "guard_msgs indented": (
        "lemma keep : True := trivial\n   #guard_msgs (drop all) in\n" + T + "by omega",
        "hash_command",
    ),
    "unknown hash command at a line start": (
        "lemma keep : True := trivial\n#my_command\n" + T + "h.symm",
        "hash_command",
    ),
    "a wrapping hash command": ("lemma keep : True := trivial\n#time in\n" + T + "h.symm", "hash_command"),
    "#guard": (T + "h.symm\n#guard 1 + 1 == 2", "hash_command"),
    # scopes the code leaves for the audit, whatever the column
    "body leaves a namespace open": (T + "by\n  exact h.symm\n" + LOOKALIKES, "scope"),
    "a section opened, a namespace left open in it": ("section\nnamespace Foo\n" + T + "h.symm\nend", "scope"),
    "body leaves a mutual open": (T + "h.symm\nmutual\n", "scope"),
    "namespace opened mid-line before the theorem": ("def x := 0 namespace Foo\n" + T + "h.symm", "scope"),
    "namespace opened after open in": ("open Nat in namespace Foo\n" + T + "h.symm", "scope"),
    "end closes the task's scope": (T + "h.symm\nend", "scope"),
    "end mid-line in the body": (T + "h.symm end Foo", "scope"),
    "two opened, one closed": ("namespace A\nnamespace B\nend B\n" + T + "h.symm", "scope"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_layer_one_refuses_each_probe(name):
    assert_refused(*REFUSED[name])


@pytest.mark.parametrize(
    "code",
    [
        "#check Nat.add_comm\n" + T + "h.symm",
        T + "h.symm\n#print axioms t1",
        "#reduce 1 + 1\n" + T + "h.symm",
        "open Finset in\ntheorem card_le (s : Finset ℕ) : #s ≤ #s := le_refl _\n" + T + "h.symm",  # `#s`: a term
        "lemma aux (s : Finset ℕ) : #s ≤\n    #s := le_refl _\n" + T + "h.symm",  # `#s` at a line start, unwrapped
        "namespace Foo\nlemma aux : True := trivial\nend Foo\n" + T + "h.symm",
        "noncomputable section\ndef f : ℕ := 0\nend\n" + T + "h.symm",
        "section\nlemma aux : True := trivial\nend\n" + T + "h.symm",
        "noncomputable section\n\n" + T + "h.symm",  # a section left open names nothing: allowed
        T + "h.symm\nsection\n",
        T + "by\n  open Nat in exact h.symm",
        "theorem «end» : True := trivial\n" + T + "h.symm",  # an escaped keyword is a name
    ],
)
def test_honest_look_alikes_pass(code):
    assert_passes(code)


def _plan():
    prepared = Prepared(
        header="import Mathlib\n",
        code="theorem foo : True := trivial\n",
        audit_names=("foo",),
        ref_declaration="theorem _root_._rlvr_ref_abc : True := sorry",
        ref_name="_rlvr_ref_abc",
    )
    return audit_plan(prepared)


def test_the_audit_names_its_own_constants_from_the_root_and_prints_the_check_s_axioms():
    lines = _plan().text.splitlines()
    assert lines[0] == "theorem _root_._rlvr_check_abc : type_of% @_root_._rlvr_ref_abc := @foo"
    assert lines[1] == "#print axioms _root_._rlvr_check_abc"


@pytest.mark.parametrize("clean_first", [True, False])
def test_every_answer_of_an_ambiguous_print_axioms_counts(clean_first):
    # `#print axioms t1` with `Foo` opened prints one answer per constant `t1` may mean.
    clean = Message("info", Pos(3, 0), None, "'Foo.foo' does not depend on any axioms")
    dirty = Message("info", Pos(3, 0), None, "'foo' depends on axioms: [sorryAx]")
    check = Message("info", Pos(2, 0), None, "'_rlvr_check_abc' does not depend on any axioms")
    answers = (check, clean, dirty) if clean_first else (check, dirty, clean)
    verdict = judge_audit(_plan(), answers, allow_native=False)
    assert verdict is not None and verdict.reason is Reason.WRONG and verdict.details["rule"] == "sorry"


def test_the_check_theorem_s_own_axioms_are_judged():
    # the name printed clean, but the constant the check elaborated `@foo` to used an axiom
    answers = (
        Message("info", Pos(2, 0), None, "'_rlvr_check_abc' depends on axioms: [cheat]"),
        Message("info", Pos(3, 0), None, "'foo' does not depend on any axioms"),
    )
    verdict = judge_audit(_plan(), answers, allow_native=False)
    assert verdict is not None and verdict.details["not_allowed"] == ["cheat"]


# --- on the real kernel (Lean 4.35 test kernel), the static layer off --------------------------

LEAN = test_kernel.find()
kernel = pytest.mark.skipif(
    LEAN is None or shutil.which("bwrap") is None,
    reason=(test_kernel.missing_reason() if LEAN is None else "") or "the file backend's sandbox needs bubblewrap",
)
PRELUDE = (Path(__file__).parent / "fixtures" / "Prelude.lean").read_text()
K_SIG = "theorem target (n : N) : Eq (N.add N.zero n) n"
K_TASK = Task(id="k6", prompt="p", answer={"header": PRELUDE, "statement": K_SIG + " :="})


def _raw(code: str, task: Task = K_TASK) -> Prepared:
    base = static_check(task, "N.zero_add n", LeanPolicy())
    assert isinstance(base, Prepared)
    return Prepared(base.header, code, base.audit_names, base.ref_declaration, base.ref_name, code)


def _exploits(ref: str) -> dict[str, str]:
    # `axiom cheat` stands in for a proof whose errors were dropped (the prelude has no
    # `#guard_msgs`): the real `target` depends on what it must not, the look-alikes are clean.
    cheat = f"axiom cheat : False\n{K_SIG} := False.rec (fun _ => _) cheat\n"
    return {
        "look-alike ref and theorem in a namespace left open": (
            f"namespace Foo\ntheorem {ref} : True := True.intro\ntheorem target : True := True.intro\n"
        ),
        "the real theorem bad, look-alikes left open": (
            cheat + f"namespace Foo\ntheorem {ref} : True := True.intro\ntheorem target : True := True.intro\n"
        ),
        "the real theorem bad, a clean look-alike opened": (
            cheat + "namespace Foo\ntheorem target : True := True.intro\nend Foo\nopen Foo\n"
        ),
        "aliases by open … renaming for the ref and the theorem": (
            cheat + "namespace Foo\ntheorem a : True := True.intro\ntheorem b : True := True.intro\nend Foo\n"
            f"open Foo renaming a → {ref}, b → target\n"
        ),
        "no real theorem, an alias in its place": (
            "namespace Foo\ntheorem a : True := True.intro\nend Foo\nopen Foo renaming a → target\n"
        ),
    }


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_the_audit_is_not_steered_by_the_scope_the_code_leaves():
    from rlvr_lean.file_backend import FileBackend

    backend = FileBackend(LEAN)
    try:
        ref = _raw("x").ref_name
        verdicts = {
            name: backend.check(_raw(code), allow_native=False, timeout_s=30) for name, code in _exploits(ref).items()
        }
        honest = backend.check(_raw(f"{K_SIG} := N.zero_add n\n"), allow_native=False, timeout_s=30)
    finally:
        backend.close()
    assert honest.passed, honest
    for name, verdict in verdicts.items():
        assert verdict.reward == 0.0 and verdict.reason is not Reason.VERIFIER_ERROR, (name, verdict)


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_an_honest_proof_under_a_header_that_leaves_a_namespace_open_still_scores():
    from rlvr_lean.verifier import LeanVerifier

    task = Task(id="ns", prompt="p", answer={"header": PRELUDE + "\nnamespace Bar\n", "statement": K_SIG + " :="})
    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    try:
        good = verifier.verify(task, "```lean4\nN.zero_add n\n```")
        restated = verifier.verify(task, f"```lean4\n{K_SIG} := N.zero_add n\n```")
        bad = verifier.verify(task, "```lean4\nrfl\n```")
    finally:
        verifier.close()
    assert good.passed and restated.passed, (good, restated)
    assert bad.reason is Reason.WRONG


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
def test_the_old_ids_stay_resolvable_and_run_the_new_checks(version):
    import warnings

    import rlvr_envs

    rows = [{"header": HEADER, "statement": STATEMENT}]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = rlvr_envs.make(f"lean-v{version}", data=rows)
    try:
        assert any("deprecated" in str(w.message) for w in caught) is (version < 9)  # v9: round 14
        code, rule = REFUSED["guard_msgs chain"]
        verdict = env.verify(env.tasks[0], f"```lean4\n{code}\n```")
        assert verdict.reward == 0.0 and verdict.details.get("rule") == rule
    finally:
        env.close()


@pytest.mark.parametrize(
    "code",
    [
        T + 's!"{' * 3000 + "1" + '}"' * 3000,  # raised RecursionError out of verify
        T + "«" * 100_000,  # each `«` sent the name pattern to the end: 18 s of CPU, then accepted
        T + "h.symm\n" + "a.«" * 50_000,
        T + "`«" * 50_000,
    ],
)
def test_deep_or_unterminated_escapes_are_a_format_error_not_a_crash(code):
    verdict = static_check(TASK, f"```lean4\n{code}\n```", LeanPolicy())
    assert not isinstance(verdict, Prepared) and verdict.reason is Reason.FORMAT_ERROR, verdict


def test_the_wrapping_check_reads_brackets_once():
    import time

    code = T + "h.symm\n" + "a #x (" * 20_000  # quadratic when each `#x` scanned to its bracket's end
    started = time.process_time()
    static_check(TASK, f"```lean4\n{code}\n```", LeanPolicy())
    assert time.process_time() - started < 10.0  # ~0.4 s linear, ~50 s quadratic (CPU time, not wall)


@pytest.mark.parametrize(
    ("fill", "rule"),
    [
        ("by simp [double] namespace Other", "scope"),  # a namespace opened mid-line in a fill
        ("by simp [double] end Demo", "scope"),  # the reference's own namespace closed early
        ("by simp [double] #guard_msgs (drop all) in", "hash_command"),
        ("by simp [double]", None),  # the honest fill
    ],
)
def test_reference_fills_leave_the_reference_s_scopes_as_they_were(fill, rule):
    from tests.lean.test_lean_reference import FILLED
    from tests.lean.test_lean_reference import TASK as REF_TASK

    verdict = static_check(REF_TASK, FILLED.replace("by simp [double]", fill), LeanPolicy())
    if rule is None:
        assert isinstance(verdict, Prepared), verdict
    else:
        assert not isinstance(verdict, Prepared) and verdict.details.get("rule") == rule, verdict

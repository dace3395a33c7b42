"""Issue 26, round 11: every backend's pass goes through the same pay gate (``rlvr_lean.gate``).

Before this round only the file backend replayed what it checked: a pass from the REPL or kimina
backends was paid on that backend's word, so an environment a previous command tampered with (or a
server that answers wrongly) paid. The stand-ins here speak the real REPL and kimina protocols and
say "checked, clean" for any proof (what a compromised backend would say); with a ``lean`` that can
replay (the test kernel), the gate checks the same file again in a fresh sandboxed Lean and replays
it through the kernel, and a proof the kernel refuses is not paid. Where no replay can run,
``replay="require"`` refuses to pay, and a policy that switched off a rule whose second line is the
replay is not honoured for the completions that need it.
"""

from __future__ import annotations

import json
import threading
from http.server import ThreadingHTTPServer

import pytest

from rlvr_envs import Reason, Task, Verdict
from rlvr_lean.gate import REPLAY_BACKED, PayGate, project_lean, replayed
from rlvr_lean.rules import RULES, LeanPolicy
from rlvr_lean.verifier import LeanVerifier
from tests.lean.test_lean_pool import STANDIN, _Kimina
from tests.lean.test_lean_redteam_round6 import K_SIG, LEAN, PRELUDE, kernel

TASK = Task(id="gate", prompt="p", answer={"header": PRELUDE, "statement": K_SIG + " :="})
HONEST = "N.zero_add n"
WRONG = "rfl"  # not a proof of `N.add N.zero n = n` (the kernel: "Not a definitional equality")


@pytest.fixture
def kimina_url():
    _Kimina.requests, _Kimina.fail_first = [], 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Kimina)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _verifier(kind: str, url: str | None, **options) -> LeanVerifier:
    if kind == "local":
        return LeanVerifier(backend="local", repl_command=STANDIN, max_repls=1, **options)
    return LeanVerifier(backend="kimina", kimina_url=url, **options)


@pytest.mark.parametrize("kind", ["local", "kimina"])
def test_the_stand_ins_pay_a_wrong_proof_on_their_own_word(kind, kimina_url):
    """The hole: without a replay, a backend's "clean" is paid (here a wrong proof), and the
    verdict now says that no replay ran."""
    verifier = _verifier(kind, kimina_url, replay="auto")
    try:
        verdict = verifier.verify(TASK, WRONG)
    finally:
        verifier.close()
    assert verdict.passed, verdict
    assert verdict.details["replay"].startswith("not run (the ") and "no kernel replay" in verdict.details["replay"]


@pytest.mark.lean
@pytest.mark.live
@kernel
@pytest.mark.parametrize("kind", ["local", "kimina"])
def test_a_pass_the_kernel_refuses_is_not_paid(kind, kimina_url):
    verifier = _verifier(kind, kimina_url, lean_bin=LEAN)
    try:
        wrong = verifier.verify(TASK, WRONG)
        honest = verifier.verify(TASK, HONEST)
        batch = verifier.verify_many([TASK, TASK, TASK], [HONEST, WRONG, "```lean4\nN.zero_add n\n```"])
    finally:
        verifier.close()
    assert wrong.reward == 0.0 and wrong.reason is Reason.WRONG, wrong
    assert wrong.details["gate"] == "replay" and wrong.details["first_backend"] == kind, wrong.details
    assert honest.passed and replayed(honest) and honest.details["replay"].endswith("(file)"), honest
    assert [v.reward for v in batch] == [1.0, 0.0, 1.0], batch


@pytest.mark.parametrize("kind", ["local", "kimina"])
def test_require_refuses_to_pay_where_no_replay_can_run(kind, kimina_url, monkeypatch):
    monkeypatch.delenv("RLVR_LEAN_BIN", raising=False)
    verifier = _verifier(kind, kimina_url, replay="require")
    try:
        verdicts = [verifier.verify(TASK, HONEST), *verifier.verify_many([TASK], [HONEST])]
    finally:
        verifier.close()
    for verdict in verdicts:
        # an infrastructure failure (a trainer skips it), never a reward for an unreplayed file
        assert verdict.reason is Reason.VERIFIER_ERROR and verdict.details["rule"] == "replay_required", verdict
        assert "no kernel replay" in verdict.details["error"]


RELAXED = "@[my_attr] theorem helper (n : N) : Eq (N.add N.zero n) n := N.zero_add n\n" + K_SIG + " := helper n"


@pytest.mark.parametrize("kind", ["local", "kimina"])
def test_a_rule_relaxed_past_what_replay_backs_is_not_honoured_without_replay(kind, kimina_url, monkeypatch):
    monkeypatch.delenv("RLVR_LEAN_BIN", raising=False)
    verifier = _verifier(kind, kimina_url, allow_rules={"unknown_attribute"})
    try:
        relaxed = verifier.verify(TASK, RELAXED)
        plain = verifier.verify(TASK, HONEST)
        batch = verifier.verify_many([TASK, TASK], [RELAXED, HONEST])
    finally:
        verifier.close()
    for verdict in (relaxed, batch[0]):
        assert verdict.reason is Reason.VERIFIER_ERROR and verdict.details["rule"] == "replay_required", verdict
        assert "unknown_attribute" in verdict.details["error"]
    assert plain.passed and batch[1].passed, (plain, batch)


def test_the_policy_gate_is_off_where_the_file_was_replayed():
    gate = PayGate("file", "auto", policy=LeanPolicy(allow_rules=frozenset({"unknown_attribute"})))
    done = Verdict.correct(details={"layer": "audit", "backend": "file", "replay": "12 constants"})
    refused = Verdict.failure(Reason.SANDBOX_VIOLATION, details={"rule": "unknown_attribute"})
    assert gate.finish(done, None, lambda policy: refused).passed
    skipped = done.model_copy(update={"details": {**done.details, "replay": "skipped (imports)"}})
    verdict = gate.finish(skipped, None, lambda policy: refused)
    assert verdict.reason is Reason.VERIFIER_ERROR and verdict.details["rule"] == "replay_required"
    # with no relaxed rule the policy gate never runs layer 1 again
    plain = PayGate("file", "auto")
    assert plain.finish(skipped, None, lambda policy: pytest.fail("not called")).passed
    # a failure is returned untouched, and nothing is re-checked for it
    assert plain.finish(refused, lambda: pytest.fail("not called"), lambda p: None) is refused


def test_a_recheck_that_cannot_run_is_not_a_refusal_except_under_require():
    """A re-check that could not run (its Lean cannot load the header's imports: a toolchain named
    without ``lean_path=``) leaves the pass on layer 1's word under ``auto``, as the file backend's
    own replay does over imports it cannot load; ``require`` refuses it; a Lean error is the verdict."""
    passed = Verdict.correct(details={"layer": "audit", "backend": "local"})
    broken = Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "unknown module prefix 'Mathlib'"})
    auto = PayGate("local", "auto").finish(passed, lambda: broken, lambda p: None)
    assert auto.passed and auto.details["replay"].startswith("skipped (the re-check failed: unknown module"), auto
    required = PayGate("local", "require").finish(passed, lambda: broken, lambda p: None)
    assert required.reason is Reason.VERIFIER_ERROR and required.details["rule"] == "replay_required"
    wrong = Verdict.failure(Reason.WRONG, details={"rule": "lean_error", "error": "type mismatch"})
    refused = PayGate("kimina", "auto").finish(passed, lambda: wrong, lambda p: None)
    assert refused.reason is Reason.WRONG and refused.details["first_backend"] == "kimina", refused
    timeout = Verdict.failure(Reason.TIMEOUT, details={"layer": "lean"})
    assert PayGate("kimina", "auto").finish(passed, lambda: timeout, lambda p: None).reason is Reason.TIMEOUT


def test_replay_backed_rules_are_rules():
    assert REPLAY_BACKED <= set(RULES)


def test_replay_modes_are_checked_at_construction():
    with pytest.raises(ValueError, match="replay must be one of"):
        LeanVerifier(backend="none", replay="sometimes")


def test_the_toolchain_a_project_pins_is_found(tmp_path, monkeypatch):
    home = tmp_path / "elan"
    lean = home / "toolchains" / "leanprover--lean4---v4.35.0" / "bin" / "lean"
    lean.parent.mkdir(parents=True)
    lean.write_text("#!/bin/sh\n")
    lean.chmod(0o755)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "lean-toolchain").write_text("leanprover/lean4:v4.35.0\n")
    monkeypatch.setenv("ELAN_HOME", str(home))
    assert project_lean(str(project)) == str(lean)
    (project / "lean-toolchain").write_text("../../etc:x\n")  # never a path outside the toolchains
    assert project_lean(str(project)) is None
    assert project_lean(str(tmp_path / "missing")) is None and project_lean(None) is None


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_the_file_backend_says_what_it_replayed_and_off_turns_it_off():
    on = LeanVerifier(backend="file", lean_bin=LEAN)
    off = LeanVerifier(backend="file", lean_bin=LEAN, replay="off")
    try:
        replayed_pass, plain_pass = on.verify(TASK, HONEST), off.verify(TASK, HONEST)
    finally:
        on.close()
        off.close()
    assert replayed(replayed_pass), replayed_pass
    assert plain_pass.passed and plain_pass.details["replay"].startswith("not run"), plain_pass


def test_details_are_json():
    verdict = PayGate("kimina", "auto", why_none="none here").finish(
        Verdict.correct(details={"layer": "audit"}), None, lambda p: None
    )
    assert json.loads(json.dumps(verdict.details))["replay"] == "not run (none here)"

"""Issue 26, round 14: kimina batches get what layer 1 left of each proof's budget.

Round 13 took layer 1's time off ``proof_timeout_s`` on the per-proof backends (file, REPL, the
``lean_check`` tool), but ``verify_many`` on kimina-lean-server still sent every batch the whole
``proof_timeout_s``: a slow layer 1 (up to ~3 s of CPU on a completion just under the size cap)
came on top of Lean's budget. Now each proof's budget is ``proof_timeout_s`` less its own layer-1
time and a batch is given the largest of its proofs' (the server takes one timeout a request).
Layer 1's clock is a fake here (no sleeping, nothing timed): deterministic on a loaded machine.
"""

from __future__ import annotations

import types

import pytest

from rlvr_envs import Reason, Task, Verdict
from rlvr_lean import verifier as verifier_module
from rlvr_lean.backends import KiminaBackend
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import LeanVerifier
from tests.lean.test_lean_pool import TASK, _Kimina, kimina_url  # noqa: F401 -- the stand-in server's fixture

PROOF_TIMEOUT_S = 10.0


@pytest.fixture
def layer_one_seconds(monkeypatch):
    """Layer 1 takes as many (fake) seconds as the completion's ``-- L1=<s>`` says, 0 without one."""
    clock = [1000.0]
    monkeypatch.setattr(verifier_module, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    real = verifier_module.static_check

    def timed(task: Task, completion: str, policy) -> Prepared | Verdict:
        if "-- L1=" in completion:
            clock[0] += float(completion.split("-- L1=")[1].split()[0])
        return real(task, completion, policy)

    monkeypatch.setattr(verifier_module, "static_check", timed)


def _sent_timeouts() -> list[int]:
    return [request["timeout"] for request in _Kimina.requests]


def test_each_batch_gets_the_largest_budget_its_proofs_have_left(kimina_url, layer_one_seconds):  # noqa: F811
    verifier = LeanVerifier(
        backend="kimina", kimina_url=kimina_url, kimina_batch_size=2, proof_timeout_s=PROOF_TIMEOUT_S
    )
    bodies = [
        "by rfl -- L1=3.5",
        "by rfl -- L1=2.2",  # batch 1: 6.5 and 7.8 s left -> 7
        "by rfl -- L1=6.1",
        "by rfl",  # batch 2: 3.9 and 10 s left -> 10
        "by rfl -- L1=9.4",  # batch 3: 0.6 s left -> the server's least, 1
        "by rfl -- L1=10.5",  # past the whole budget: a timeout, never sent
    ]
    verdicts = verifier.verify_many([TASK] * len(bodies), bodies)
    assert [v.reason for v in verdicts] == [Reason.OK] * 5 + [Reason.TIMEOUT]
    assert verdicts[5].details["layer"] == "static"
    assert [len(r["codes"]) for r in _Kimina.requests] == [2, 2, 1]
    # before round 14: [10, 10, 10] (every batch the whole proof_timeout_s)
    assert _sent_timeouts() == [7, 10, 1]


def test_a_flooding_batch_is_resent_proof_by_proof_each_with_its_own_budget(
    kimina_url,  # noqa: F811
    layer_one_seconds,
    monkeypatch,
):
    monkeypatch.setattr(KiminaBackend, "max_reply_bytes_per_proof", 100_000)
    verifier = LeanVerifier(
        backend="kimina", kimina_url=kimina_url, kimina_batch_size=2, proof_timeout_s=PROOF_TIMEOUT_S
    )
    verdicts = verifier.verify_many([TASK] * 2, ["by rfl -- L1=1.5", "by rfl -- STANDIN_FLOOD -- L1=4.2"])
    assert [v.reason for v in verdicts] == [Reason.OK, Reason.RUNTIME_ERROR]
    assert _sent_timeouts() == [8, 8, 5]  # the batch (the larger), then each alone with its own


def test_one_proof_through_verify_gets_what_layer_one_left(kimina_url, layer_one_seconds):  # noqa: F811
    verifier = LeanVerifier(backend="kimina", kimina_url=kimina_url, proof_timeout_s=PROOF_TIMEOUT_S)
    assert verifier.verify(TASK, "by rfl -- L1=2.5").reason is Reason.OK
    assert _sent_timeouts() == [7]


def test_budgets_must_match_the_proofs():
    backend = KiminaBackend("http://127.0.0.1:9", retries=0)
    with pytest.raises(ValueError, match="budgets"):
        backend.check_many([], allow_native=False, timeout_s=1.0, budgets_s=[1.0])

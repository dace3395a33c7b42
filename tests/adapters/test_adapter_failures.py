"""Infrastructure failures are never a reward: one FailurePolicy for TRL, verl and OpenRLHF.

A verifier that reports ``verifier_error`` (the stand-in for a dead judge, a missing Lean or no
bubblewrap) must never be paid silently: by default every adapter raises after
``max_consecutive`` in a row, TRL leaves isolated ones out (None), verl and OpenRLHF pay them 0.0
flagged and logged; ``skip`` and ``zero`` are explicit choices, and ``skip`` is refused where the
trainer cannot leave a sample out.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request

import pytest

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.adapters.failures import SKIP, FailurePolicy, InfrastructureFailure
from rlvr_envs.adapters.routing import task_to_json
from tests.helpers.toy import ToyAddEnv


class OutageVerifier(Verifier):
    """``down...`` completions fail like a dead endpoint; ``<answer>N</answer>`` is graded."""

    def verify(self, task: Task, completion: str) -> Verdict:
        if completion.startswith("down"):
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "judge call failed: connection refused"})
        ok = completion.strip() == f"<answer>{task.answer}</answer>"
        return Verdict.correct(str(task.answer)) if ok else Verdict.failure(Reason.WRONG)


@pytest.fixture()
def env():
    return ToyAddEnv(verifier=OutageVerifier(), isolation="inline")


def _verdicts(*reasons: Reason) -> list[Verdict]:
    return [Verdict.correct("1") if r is Reason.OK else Verdict.failure(r) for r in reasons]


E, OK, W = Reason.VERIFIER_ERROR, Reason.OK, Reason.WRONG


# -- the policy itself ----------------------------------------------------------------------------------
def test_fail_raises_at_the_limit_counting_across_calls_and_a_success_resets():
    policy = FailurePolicy("fail", max_consecutive=3, name="t")
    assert policy.rewards(_verdicts(OK, E, E), can_skip=True) == [1.0, SKIP, SKIP]
    with pytest.raises(InfrastructureFailure, match=r"3 verifier errors in a row .*max_consecutive=3"):
        policy.rewards(_verdicts(E), can_skip=True)  # the run carried over from the last call
    assert policy.rewards(_verdicts(OK), can_skip=True) == [1.0]  # a success ends the run
    assert policy.rewards(_verdicts(E, E, W, E, E), can_skip=False) == [0.0, 0.0, 0.0, 0.0, 0.0]
    with pytest.raises(InfrastructureFailure):
        policy.rewards(_verdicts(E, E, E, OK), can_skip=False)  # a run inside one batch counts too
    assert policy.totals["verifier_error"] == 10 and policy.totals["batches"] == 5


def test_skip_and_zero_never_raise():
    skip, zero = FailurePolicy("skip", 1), FailurePolicy("zero", 1)
    for _ in range(3):
        assert skip.rewards(_verdicts(E, OK, E), can_skip=True) == [SKIP, 1.0, SKIP]
        assert zero.rewards(_verdicts(E, OK, E), can_skip=True) == [0.0, 1.0, 0.0]


def test_a_policy_pickles_with_its_counts():
    import pickle

    policy = FailurePolicy("fail", max_consecutive=3)
    policy.rewards(_verdicts(E, E), can_skip=True)
    copy = pickle.loads(pickle.dumps(policy))
    assert copy.streak == 2 and copy.max_consecutive == 3
    with pytest.raises(InfrastructureFailure):
        copy.rewards(_verdicts(E), can_skip=True)


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="on_error"):
        FailurePolicy("ignore")
    with pytest.raises(ValueError, match="at least 1"):
        FailurePolicy("fail", 0)
    with pytest.raises(ValueError, match="cannot leave a sample out"):
        FailurePolicy.of("skip", "verl", can_skip=False)


def test_every_batch_logs_one_line_with_its_counts(caplog):
    policy = FailurePolicy("zero", name="my-adapter")
    with caplog.at_level(logging.INFO, logger="rlvr_envs.adapters.failures"):
        policy.rewards(_verdicts(E, OK, E, W), can_skip=False)
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["my-adapter batch: 4 rows, 2 verifier_error, 0 in a row (limit 8), on_error=zero"]


# -- TRL -------------------------------------------------------------------------------------------------
def _trl_call(fn, env, completions):
    task = env.sample(1, seed=0)[0]
    good = [c.replace("GOLD", str(task.answer)) for c in completions]
    return fn(prompts=[""] * len(good), completions=good, task=[task_to_json(task)] * len(good))


def test_trl_default_leaves_isolated_errors_out_and_fails_on_an_outage(env):
    from rlvr_envs.adapters.trl import reward_function

    fn = reward_function(env)
    assert _trl_call(fn, env, ["<answer>GOLD</answer>", "down", "<answer>-1</answer>"]) == [1.0, None, 0.0]
    with pytest.raises(InfrastructureFailure, match="judge call failed: connection refused"):
        _trl_call(fn, env, ["down"] * 8)


@pytest.mark.parametrize(("on_error", "expected"), [("skip", None), ("zero", 0.0)])
def test_trl_skip_and_zero_pay_what_they_say_under_an_outage(env, on_error, expected):
    from rlvr_envs.adapters.trl import reward_function

    fn = reward_function(env, on_error=on_error, format_weight=0.5)  # shaping never touches an error
    assert _trl_call(fn, env, ["down"] * 20) == [expected] * 20


# -- verl ------------------------------------------------------------------------------------------------
def _verl_args(env, completion):
    task = env.sample(1, seed=0)[0]
    info = {"env_id": env.env_id, "task": task_to_json(task)}
    return env.env_id, completion.replace("GOLD", str(task.answer)), str(task.answer), info


def test_verl_default_pays_isolated_errors_zero_with_a_flag_and_fails_on_an_outage(env, caplog):
    from rlvr_envs.adapters.verl import compute_score, compute_score_batch, compute_score_detailed, configure

    configure([env])
    assert compute_score(*_verl_args(env, "<answer>GOLD</answer>")) == 1.0
    with caplog.at_level(logging.WARNING, logger="rlvr_envs.adapters.failures"):
        detailed = compute_score_detailed(*_verl_args(env, "down"))
    assert detailed == {"score": 0.0, "acc": 0.0, "verifier_error": 1.0}
    assert any("paid 0.0" in r.getMessage() for r in caplog.records)  # never silent
    rows = [_verl_args(env, "down") for _ in range(8)]
    with pytest.raises(InfrastructureFailure):
        compute_score_batch(*map(list, zip(*rows)))
    # One sample at a time, as verl's naive manager calls it: the run is counted across calls.
    configure([env], on_error=FailurePolicy("fail", max_consecutive=3))
    compute_score(*_verl_args(env, "down"))
    compute_score(*_verl_args(env, "down"))
    with pytest.raises(InfrastructureFailure):
        compute_score(*_verl_args(env, "down"))


def test_verl_zero_through_reward_kwargs_and_skip_refused(env):
    from rlvr_envs.adapters.verl import compute_score, configure

    configure([env])
    # verl passes custom_reward_function.reward_kwargs to compute_score as keywords.
    assert [compute_score(*_verl_args(env, "down"), on_error="zero") for _ in range(20)] == [0.0] * 20
    with pytest.raises(ValueError, match="cannot leave a sample out"):
        compute_score(*_verl_args(env, "down"), on_error="skip")
    with pytest.raises(ValueError, match="cannot leave a sample out"):
        configure([env], on_error="skip")


# -- OpenRLHF ----------------------------------------------------------------------------------------------
def _post(url, body):
    request = urllib.request.Request(
        url + "/get_reward", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


def _openrlhf_body(env, completions):
    from rlvr_envs.serve.protocol import openrlhf_label

    task = env.sample(1, seed=0)[0]
    return {
        "query": [task.prompt + c.replace("GOLD", str(task.answer)) for c in completions],
        "prompts": [task.prompt] * len(completions),
        "labels": [openrlhf_label(env.env_id, task)] * len(completions),
    }


def test_openrlhf_default_flags_isolated_errors_and_refuses_to_pay_an_outage(env):
    pytest.importorskip("uvicorn")
    from rlvr_envs.serve.app import RewardServer

    with RewardServer(env, port=0) as server:
        out = _post(server.url, _openrlhf_body(env, ["<answer>GOLD</answer>", "down"]))
        assert out["rewards"] == [1.0, 0.0] and out["extra_logs"]["verifier_error"] == [0.0, 1.0]
        with pytest.raises(urllib.error.HTTPError) as caught:
            _post(server.url, _openrlhf_body(env, ["down"] * 8))
        assert caught.value.code >= 500
        assert "verifier errors in a row" in caught.value.read().decode()


def test_openrlhf_zero_pays_zero_and_skip_is_refused_at_start(env):
    pytest.importorskip("uvicorn")
    from rlvr_envs.serve.app import RewardServer, ServerConfigError

    with RewardServer(env, port=0, on_error="zero", max_consecutive_errors=2) as server:
        out = _post(server.url, _openrlhf_body(env, ["down"] * 10))
        assert out["rewards"] == [0.0] * 10 and out["extra_logs"]["verifier_error"] == [1.0] * 10
    with pytest.raises(ServerConfigError, match="cannot leave a sample out"):
        RewardServer(env, port=0, on_error="skip")


def test_serve_command_line_takes_the_policy_and_the_call_cap():
    from rlvr_envs.cli import build_parser

    parser = build_parser(load_plugins=False)
    args = parser.parse_args(["serve", "math-arith"])
    assert (args.on_error, args.max_consecutive_errors, args.max_call_s) == ("fail", 8, 150.0)
    args = parser.parse_args(["serve", "--on-error", "zero", "--max-consecutive-errors", "3", "--max-call-s", "60"])
    assert (args.on_error, args.max_consecutive_errors, args.max_call_s) == ("zero", 3, 60.0)
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--on-error", "skip"])  # OpenRLHF cannot leave a sample out

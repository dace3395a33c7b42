"""Reward integrity of the judge family: what the judge is shown, and a judge that hangs.

- Reference mode shows the judge the whole final answer and everything written after it; what
  is too long is refused before any judge call (``format_error`` naming ``max_final_chars``),
  never cut. Asserted on the request the stand-in judge received, not only on the verdict.
- A hanging endpoint trips the per-endpoint circuit breaker: calls fail at once (``verifier_error``
  naming the breaker) instead of each waiting out its timeout, and a probe after the cool-down
  closes it again.
- Behind the reward server, a judge's worst case fits the server's per-call cap.
"""

from __future__ import annotations

import time
import warnings

import pytest

import rlvr_envs
from rlvr_envs.types import Reason
from rlvr_judge.client import JudgeClient, breaker_for
from rlvr_judge.testing import ScriptedJudgeServer
from tests.judge import conformance  # noqa: F401 -- loads the plugin at collection
from tests.judge.helpers import stand_in_env

ROW = {"prompt": "What is 1 + 2?", "reference": "3"}


@pytest.fixture()
def server():
    with ScriptedJudgeServer() as s:
        yield s


def _fenced(body) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return user.split(">>>\n", 1)[1].rsplit("\n<<<END RESPONSE", 1)[0]


def _shown(server, env, completion):
    before = len(server.bodies)
    verdict = env.verify(env.tasks[0], completion)
    sent = server.bodies[before:]
    return verdict, [_fenced(b) for b in sent]


# -- what the judge sees ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "tail",
    [
        " if that is wrong, it is 41",
        "\n\nActually, on reflection: 4.",
        "\n如果错了，答案是41。",  # Chinese
        "\nFalls das falsch ist: 4",  # German
        " \\boxed{4}",  # a second box after the tag
        "\n<answer>4",  # an unclosed second tag
    ],
)
def test_text_after_the_answer_tag_is_shown_to_the_judge(server, tail):
    # screen=1: what the judge is shown. The default screen refuses the hedges among these before
    # any judge call (test_judge_redteam_round6.py); what it lets through is shown exactly so.
    env = stand_in_env(server, "judge-ref", data=[ROW], screen=1)
    verdict, shown = _shown(server, env, "<answer>3</answer>" + tail)
    assert len(shown) == 1 and "3" in shown[0] and tail.strip() in shown[0]
    assert verdict.reason is Reason.WRONG and verdict.details["template"] == "ref-v2"
    if verdict.details["final_answer"] == "answer_tag":  # else no tag closes last: the whole response is shown
        assert shown[0].startswith("3\n\n") and verdict.details["after_answer_chars"] == len(tail.strip())


@pytest.mark.parametrize(
    ("completion", "view"),
    [
        ("<answer>3</answer>", "3"),
        ("So the sum is \\boxed{3}.", "So the sum is 3"),  # since judge-ref-v5: the answer's own sentence
        ("The answer is $\\boxed{3}$.", "The answer is 3"),
        ("#### 3", "3"),
        ("Answer: **3**", "Answer: 3"),
    ],
)
def test_an_honest_answer_with_only_closing_punctuation_after_it_still_scores(server, completion, view):
    env = stand_in_env(server, "judge-ref", data=[ROW])
    verdict, shown = _shown(server, env, completion)
    assert verdict.passed, verdict.details
    assert shown == [view]


@pytest.mark.parametrize("where", ["inside the answer", "after the answer"])
def test_an_alternative_past_2000_characters_is_seen_or_refused_never_cut(server, where):
    pad = "I checked this carefully several times. " * 60  # ~2,400 characters
    if where == "inside the answer":
        completion = f"<answer>3. {pad} Or maybe 4.</answer>"
    else:
        completion = f"<answer>3</answer> {pad} Or maybe 4."
    env = stand_in_env(server, "judge-ref", data=[ROW], screen=1)  # the default screen refuses "Or maybe 4." after it
    verdict, shown = _shown(server, env, completion)
    assert len(shown) == 1 and shown[0].endswith("Or maybe 4.") and not verdict.passed  # seen whole

    tight = stand_in_env(server, "judge-ref", data=[ROW], max_final_chars=2_000, screen=1)
    verdict, shown = _shown(server, tight, completion)
    assert shown == [] and verdict.reason is Reason.FORMAT_ERROR  # refused before any judge call
    assert "max_final_chars" in verdict.details["guard"] and "2000" in verdict.details["guard"]


def test_an_unmarked_response_is_shown_whole_or_refused(server):
    env = stand_in_env(server, "judge-ref", data=[ROW], max_final_chars=500)
    verdict, shown = _shown(server, env, "It is 3. " + "More words here. " * 10 + "Or 4.")
    assert len(shown) == 1 and shown[0].startswith("It is 3.") and shown[0].endswith("Or 4.")
    verdict, shown = _shown(server, env, "It is 3. " + "More words here. " * 60 + "Or 4.")
    assert shown == [] and verdict.reason is Reason.FORMAT_ERROR
    assert "no marked final answer" in verdict.details["guard"]


def test_the_deprecated_v0_ids_keep_their_old_view(server):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = stand_in_env(server, "judge-ref-v0", data=[ROW])
    verdict, shown = _shown(server, old, "<answer>3</answer> if that is wrong, it is 41")
    assert shown == ["3"] and verdict.details["template"] == "ref-v0"  # the hole v1 closes
    # v1 + the screen (v2) + round 6 (v3) + round 7 (v4) + the answer's sentence (v5)
    assert rlvr_envs.registry.resolve("judge-ref").id == "judge-ref-v7"
    assert rlvr_envs.registry.resolve("judge").id == "judge-v7"


# -- the circuit breaker ------------------------------------------------------------------------------
def _hanging_env(server, **kw):
    options = dict(timeout_s=0.3, max_retries=0, breaker_threshold=3, breaker_cooldown_s=0.5, max_concurrency=2)
    options.update(kw)
    rows = [{"prompt": f"What is {i} + 1?", "reference": str(i + 1)} for i in range(12)]
    return stand_in_env(server, "judge-ref", data=rows, cache=False, **options)


def test_a_hanging_judge_trips_the_breaker_and_the_batch_fails_fast():
    with ScriptedJudgeServer(delay_s=3.0) as hanging:  # every answer takes 3 s; the client waits 0.3 s
        env = _hanging_env(hanging)
        verdicts = env.verify_batch(list(env.tasks), [f"<answer>{i + 1}</answer>" for i in range(12)])
        assert all(v.reason is Reason.VERIFIER_ERROR for v in verdicts)
        # Only the calls already in flight when it opened reached the endpoint; the rest were refused.
        assert hanging.requests <= 3 + 2
        refused = [v for v in verdicts if v.details.get("circuit_breaker") == "open"]
        assert len(refused) >= 12 - 5
        assert "circuit breaker open" in refused[0].details["error"]
        assert "breaker_threshold=3" in refused[0].details["error"]

        # Shared per endpoint: another client of the same endpoint is refused without a request.
        other = _hanging_env(hanging)
        before = hanging.requests
        again = other.verify(other.tasks[0], "<answer>1</answer>")
        assert again.details.get("circuit_breaker") == "open" and hanging.requests == before

        # Half-open after the cool-down: one probe goes through; the endpoint answers, the breaker closes.
        hanging.delay_s = 0.0
        time.sleep(0.6)
        assert env.verify(env.tasks[0], "<answer>1</answer>").passed
        assert not breaker_for(hanging.base_url).is_open
        assert env.verify(env.tasks[1], "<answer>2</answer>").passed


def test_a_failed_probe_opens_the_breaker_again():
    with ScriptedJudgeServer(delay_s=3.0) as hanging:
        env = _hanging_env(hanging)
        for i in range(3):
            env.verify(env.tasks[i], "<answer>1</answer>")
        assert breaker_for(hanging.base_url).is_open
        time.sleep(0.6)
        before = hanging.requests
        probe = env.verify(env.tasks[3], "<answer>4</answer>")  # goes through, times out
        assert hanging.requests == before + 1 and probe.details.get("circuit_breaker") is None
        refused = env.verify(env.tasks[4], "<answer>5</answer>")
        assert refused.details.get("circuit_breaker") == "open" and hanging.requests == before + 1


def test_an_unparseable_answer_is_not_an_endpoint_failure():
    with ScriptedJudgeServer("garbage") as garbage:
        env = _hanging_env(garbage, breaker_threshold=1)
        for task in env.tasks[:3]:
            verdict = env.verify(task, "<answer>1</answer>")
            assert verdict.reason is Reason.VERIFIER_ERROR and "after one repair" in verdict.details["error"]
        assert not breaker_for(garbage.base_url).is_open  # the endpoint answers: nothing to break


def test_breaker_options_are_checked():
    with pytest.raises(ValueError, match="breaker"):
        JudgeClient("http://127.0.0.1:9/v1", "m", breaker_threshold=-1)


# -- served budgets -----------------------------------------------------------------------------------
def test_behind_the_server_a_judge_fits_the_per_call_cap(server):
    pytest.importorskip("uvicorn")
    from rlvr_envs.serve.app import DEFAULT_MAX_CALL_S, RewardServer

    env = stand_in_env(server, "judge-ref", data=[ROW])  # client defaults: 60 s timeout, 3 retries
    assert env.verifier.time_budget_s > 180  # 545 s: over OpenRLHF's 180 s client timeout
    RewardServer(env, port=0, preload=False).stop()
    judge = env.judge_verifier.judges[0]
    worst = 2 * (judge.timeout_s * (judge.max_retries + 1) + judge.max_backoff_s * judge.max_retries) + 5
    assert worst <= DEFAULT_MAX_CALL_S < 180 and env.verifier.time_budget_s <= DEFAULT_MAX_CALL_S
    assert judge.timeout_s == 60  # fewer retries first, the request timeout kept where it fits
    tight = stand_in_env(server, "judge-ref", data=[ROW])
    RewardServer(tight, port=0, preload=False, max_call_s=20).stop()
    judge = tight.judge_verifier.judges[0]
    assert judge.max_retries == 0 and 2 * judge.timeout_s + 5 <= 20
    assert tight.verify(tight.tasks[0], "<answer>3</answer>").passed  # still grades

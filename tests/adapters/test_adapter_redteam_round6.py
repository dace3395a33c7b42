"""Issue 26, round 6: trainer adapters under mixed batches and malformed trainer input.

- A dead backend for one env in a batch that mixes envs was never reported: every healthy row in
  between ended the run of verifier errors, so a routed verl run paid every Lean row 0.0 forever
  (a warning line per batch, never ``InfrastructureFailure``). Runs are now counted per source.
- ``compute_score_batch`` with columns of different lengths zipped them: rows were dropped and
  every later reward landed on another response. Now a clear ``ValueError``.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.adapters.failures import FailurePolicy, InfrastructureFailure
from rlvr_envs.adapters.routing import task_to_json
from tests.helpers.toy import ToyAddEnv

E, OK = Reason.VERIFIER_ERROR, Reason.OK


def _verdict(reason: Reason) -> Verdict:
    return Verdict.correct("1") if reason is OK else Verdict.failure(reason, details={"error": "no Lean"})


@pytest.mark.parametrize("healthy_share", [1, 2, 5])
def test_a_dead_source_interleaved_with_healthy_ones_still_fails(healthy_share):
    policy = FailurePolicy("fail", max_consecutive=4, name="t")
    rows = (["lean"] + ["math"] * healthy_share) * 3
    verdicts = [_verdict(E if s == "lean" else OK) for s in rows]
    assert policy.rewards(verdicts, can_skip=False, sources=rows)  # three lean errors so far: below the limit
    with pytest.raises(InfrastructureFailure, match="4 verifier errors in a row"):
        policy.rewards(verdicts[: 1 + healthy_share], can_skip=False, sources=rows[: 1 + healthy_share])


def test_a_source_s_own_success_ends_its_run_and_other_sources_do_not():
    policy = FailurePolicy("fail", max_consecutive=3, name="t")
    policy.rewards([_verdict(E), _verdict(E)], can_skip=True, sources=["a", "a"])
    policy.rewards([_verdict(OK)], can_skip=True, sources=["b"])  # another source: a's run goes on
    assert policy.streaks == {"a": 2, "b": 0}
    policy.rewards([_verdict(OK)], can_skip=True, sources=["a"])  # a's own success ends it
    policy.rewards([_verdict(E), _verdict(E)], can_skip=True, sources=["a", "a"])
    with pytest.raises(InfrastructureFailure):
        policy.rewards([_verdict(E)], can_skip=True, sources=["a"])


def test_sources_must_match_the_verdicts():
    with pytest.raises(ValueError, match="2 sources for 1 verdicts"):
        FailurePolicy().rewards([_verdict(OK)], can_skip=True, sources=["a", "b"])


class _LeanDown(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "no Lean backend"})


class _DownEnv(ToyAddEnv):
    env_id = "toydown-v0"


def _row(env, completion):
    task = env.sample(1, seed=0)[0]
    info = {"env_id": env.env_id, "task": task_to_json(task)}
    return env.env_id, completion.replace("GOLD", str(task.answer)), str(task.answer), info


def test_verl_one_call_at_a_time_counts_the_dead_env_s_run_through_healthy_rows():
    from rlvr_envs.adapters.verl import compute_score, configure

    healthy = ToyAddEnv(isolation="inline")
    down = _DownEnv(verifier=_LeanDown(), isolation="inline")
    assert healthy.env_id != down.env_id
    configure([healthy, down], on_error=FailurePolicy("fail", max_consecutive=3))
    for _ in range(2):
        assert compute_score(*_row(healthy, "<answer>GOLD</answer>")) == 1.0
        assert compute_score(*_row(down, "<answer>GOLD</answer>")) == 0.0  # isolated: paid 0.0, flagged
        assert compute_score(*_row(healthy, "<answer>GOLD</answer>")) == 1.0
    with pytest.raises(InfrastructureFailure):
        compute_score(*_row(down, "<answer>GOLD</answer>"))


@pytest.mark.parametrize(
    "sizes",
    [(3, 2, 3, 3), (3, 3, 2, 3), (3, 3, 3, 1), (2, 3, 3, None)],
)
def test_verl_batch_columns_of_different_lengths_are_refused(sizes):
    from rlvr_envs.adapters.verl import compute_score_batch, configure

    env = ToyAddEnv(isolation="inline")
    configure([env])
    row = _row(env, "<answer>GOLD</answer>")
    columns = [[row[k]] * n for k, n in enumerate(sizes[:3])]
    extra = None if sizes[3] is None else [row[3]] * sizes[3]
    with pytest.raises(ValueError, match="one entry per response"):
        compute_score_batch(*columns, extra, on_error="zero")


def test_trl_counts_a_dead_env_s_run_through_a_mixture_and_refuses_short_columns():
    from rlvr_envs.adapters.trl import reward_function

    healthy = ToyAddEnv(isolation="inline")
    down = _DownEnv(verifier=_LeanDown(), isolation="inline")
    reward = reward_function([healthy, down], on_error=FailurePolicy("fail", max_consecutive=3))
    task = task_to_json(healthy.sample(1, seed=0)[0])
    answer = f"<answer>{healthy.sample(1, seed=0)[0].answer}</answer>"
    ids = [healthy.env_id, down.env_id] * 2
    assert reward(completions=[answer] * 4, task=[task] * 4, env_id=ids) == [1.0, None, 1.0, None]
    with pytest.raises(InfrastructureFailure):
        reward(completions=[answer] * 2, task=[task] * 2, env_id=ids[:2])
    with pytest.raises(ValueError, match="values in column 'env_id'"):
        reward(completions=[answer] * 3, task=[task] * 3, env_id=ids[:2])


@pytest.mark.parametrize(
    ("content", "paid"),
    [
        ("GOLD", 1.0),
        ([{"type": "text", "text": "GOLD"}], 1.0),  # the typed-parts form scored 0: its repr was verified
        ([{"type": "text", "text": "<answer>"}, {"type": "text", "text": "N</answer>"}], 1.0),
        ([{"type": "image", "text": "GOLD"}], 0.0),  # only text parts are the answer
        (None, 0.0),  # was the text "None"
    ],
)
def test_trl_reads_message_content_parts_as_text(content, paid):
    from rlvr_envs.adapters.trl import reward_function

    env = ToyAddEnv(isolation="inline")
    task = env.sample(1, seed=0)[0]
    gold = f"<answer>{task.answer}</answer>"
    if isinstance(content, str):
        content = content.replace("GOLD", gold)
    elif isinstance(content, list):
        content = [{**p, "text": p["text"].replace("GOLD", gold).replace("N<", f"{task.answer}<")} for p in content]
    reward = reward_function([env], on_error="zero")
    assert reward(completions=[[{"role": "assistant", "content": content}]], task=[task_to_json(task)]) == [paid]


# Two env ids of one family make the mixture: the deprecated -v2 is the second (same checks).
@pytest.mark.filterwarnings("ignore::rlvr_envs.registration.DeprecatedEnvWarning")
def test_trl_episode_reward_counts_a_dead_env_s_run_through_a_mixture():
    from rlvr_envs.adapters.trl_env import environment_factory, episode_reward_function
    from tests.episodes import adapter_tools

    adapter_tools.register()
    dead = environment_factory("math-arith", tools=["dying"])
    healthy = environment_factory("math-arith-v2", tools=["dying"])
    row = {"task": task_to_json(Task(id="r", prompt="What is 2+2?", answer="4"))}

    def lost():
        env = dead()
        env.reset(**row)
        env.dying(text="a")
        env.dying(text="b")
        return env

    def fine():
        env = healthy()
        env.reset(**row)
        return env

    reward = episode_reward_function(on_error=FailurePolicy("fail", max_consecutive=3))
    assert reward(["\\boxed{4}"] * 4, [lost(), fine(), lost(), fine()]) == [None, 1.0, None, 1.0]
    with pytest.raises(InfrastructureFailure):
        reward(["\\boxed{4}"] * 2, [fine(), lost()])
